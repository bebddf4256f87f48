// A job that runs later (`runAt`), on both stores through the app and the real queue: it waits
// `queued`, its platform untouched, until its time, then runs; a time past 30 days ahead, or not a
// time at all, is 400.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp, TestClock } from "../helpers/app.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const queueSettings = { retries: 2, retryDelayS: 1, heartbeatS: 10, pollS: 2 };
const postLink = (n: number) => `https://x.com/nasa/status/${numberedPostId(n)}`;

describe.each(storeKinds)("runAt on %s", (kind) => {
  let store: TestStore;
  let x: FakeXUpstream;
  let queue: Queue;
  let app: TestApp;

  beforeAll(async () => {
    [store, x] = await Promise.all([openTestStore(kind), startFakeXUpstream()]);
    queue = await startQueue(
      store.db,
      { ...queueSettings, schema: store.queueSchema },
      (error) => console.error(error),
    );
    // The app's clock at the wall clock's: the queue waits on the store's real time.
    app = buildTestApp(store.db, {
      env: { X_SYNDICATION_URL: x.syndicationUrl },
      queue,
      clock: new TestClock(new Date()),
    });
    await app.jobs!.work();
  }, scaled(120_000));
  afterAll(async () => {
    await queue?.stop();
    await Promise.all([store?.close(), x?.close()]);
  });

  const submit = (key: string, body: unknown) => app.post("/api/v1/jobs", key, body);
  const statusOf = async (key: string, id: string) =>
    ((await (await app.get(`/api/v1/jobs/${id}`, key)).json()) as { status: string }).status;

  test("a job with runAt 5 s ahead stays queued, its platform unasked, until then, and runs after", {
    timeout: scaled(60_000),
  }, async () => {
    const key = await makeKey(store.db, "PRO");
    const runAt = new Date(Date.now() + 5_000);
    const before = x.calls();
    const created = await submit(key.plain, { urls: [postLink(1)], runAt: runAt.toISOString() });
    expect(created.status).toBe(202);
    const job = (await created.json()) as { id: string; request: { runAt: string } };
    expect(job.request.runAt).toBe(runAt.toISOString());
    // Every look answered before runAt: queued, and no request has reached the platform. A look is
    // judged by when its answer came, so that a slow one that ends past runAt is not held to it.
    for (;;) {
      const status = await statusOf(key.plain, job.id);
      const calls = x.calls();
      if (Date.now() >= runAt.getTime()) break;
      expect(status).toBe("queued");
      expect(calls).toBe(before);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await until("the job completed", async () => (await statusOf(key.plain, job.id)) === "completed", 30_000);
    expect(x.calls()).toBeGreaterThan(before);
  });

  test("runAt past 30 days ahead, or not an ISO 8601 time, is 400", async () => {
    const key = await makeKey(store.db, "PRO");
    const far = new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString();
    const tooFar = await submit(key.plain, { urls: [postLink(2)], runAt: far });
    expect(tooFar.status).toBe(400);
    expect(((await tooFar.json()) as { detail: string }).detail).toMatch(/30 days/);
    expect((await submit(key.plain, { urls: [postLink(2)], runAt: "tomorrow" })).status).toBe(400);
  });
});
