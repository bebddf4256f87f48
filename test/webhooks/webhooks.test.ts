// Webhooks as an owner meets them, on both stores, through the app and the real queue: endpoints
// registered and refused, a job's events reaching a local receiver that verifies each with the
// standardwebhooks package, a rotation signing with both secrets, an attempt that fails and comes
// again after a restart of the queue's instance, and (PostgreSQL) two instances delivering once.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp, TestClock } from "../helpers/app.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const queueSettings = { retries: 2, retryDelayS: 1, heartbeatS: 10, pollS: 2 };
const postLink = (n: number) => `https://x.com/nasa/status/${numberedPostId(n)}`;

describe.each(storeKinds)("webhooks on %s", (kind) => {
  let store: TestStore;
  let x: FakeXUpstream;
  let receiver: Receiver;
  let queue: Queue;
  let app: TestApp;
  const env = () => ({
    X_SYNDICATION_URL: x.syndicationUrl,
    WEBHOOK_EXTRA_HOSTS: receiver.endpoint,
    WEBHOOK_RETRY_SCHEDULE: "0,1,1",
  });

  async function startInstance(db = store.db) {
    const instanceQueue = await startQueue(
      db,
      { ...queueSettings, schema: store.queueSchema },
      (error) => console.error(error),
    );
    // The app's clock at the wall clock's now: a rotation's day is measured against deliveries' real time.
    const instance = buildTestApp(db, { env: env(), queue: instanceQueue, clock: new TestClock(new Date()) });
    await instance.jobs!.work();
    await instance.events!.work();
    return { queue: instanceQueue, app: instance };
  }

  beforeAll(async () => {
    [store, x, receiver] = await Promise.all([openTestStore(kind), startFakeXUpstream(), startReceiver()]);
    ({ queue, app } = await startInstance());
  }, scaled(120_000));
  afterAll(async () => {
    await queue?.stop();
    await Promise.all([store?.close(), x?.close(), receiver?.close()]);
  });

  const call = (key: string, path: string, method = "GET", body?: unknown) =>
    method === "POST" ? app.post(path, key, body) : app.get(path, key, { method });

  async function register(key: string, events = ["job.completed", "job.failed", "job.item.failed"]) {
    const answer = await call(key, "/api/v1/webhooks", "POST", { url: receiver.url, events });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { id: string; secret: string };
  }

  test("an endpoint on a loopback address is refused without WEBHOOK_EXTRA_HOSTS, 400 saying why", async () => {
    const bare = buildTestApp(store.db);
    const key = await makeKey(store.db, "PRO");
    const answer = await bare.post("/api/v1/webhooks", key.plain, { url: receiver.url, events: ["job.completed"] });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { detail: string }).detail).toMatch(/public address.*WEBHOOK_EXTRA_HOSTS/);
  });

  test("registers, lists without the secret, and keeps each endpoint its account's own", async () => {
    const [owner, stranger] = [await makeKey(store.db, "PRO"), await makeKey(store.db, "PRO")];
    const made = await register(owner.plain);
    expect(made.secret).toMatch(/^whsec_/);
    const list = (await (await call(owner.plain, "/api/v1/webhooks")).json()) as { webhooks: object[] };
    expect(list.webhooks).toEqual([expect.objectContaining({ id: made.id, url: receiver.url })]);
    expect(JSON.stringify(list)).not.toContain(made.secret);
    expect((await call(stranger.plain, `/api/v1/webhooks/${made.id}`)).status).toBe(404);
    expect((await call(stranger.plain, `/api/v1/webhooks/${made.id}`, "DELETE")).status).toBe(404);
    expect((await call(owner.plain, "/api/v1/webhooks/not-an-id")).status).toBe(404);
    expect((await call(owner.plain, `/api/v1/webhooks/${made.id}`, "DELETE")).status).toBe(204);
    expect((await call(owner.plain, `/api/v1/webhooks/${made.id}`)).status).toBe(404);
  });

  test("a job's end reaches the receiver signed, and its failed item too", { timeout: scaled(120_000) }, async () => {
    const key = await makeKey(store.db, "PRO");
    const hook = await register(key.plain);
    const created = await call(key.plain, "/api/v1/jobs", "POST", {
      urls: [postLink(1), "https://example.com/not-a-platform"],
      webhook: hook.id,
    });
    expect(created.status).toBe(202);
    const job = (await created.json()) as { id: string };
    const ofJob = (type: string) =>
      receiver.events(type).filter((each) =>
        JSON.parse(each.body).data.id === job.id || JSON.parse(each.body).data.job?.id === job.id
      );
    const [ended] = await until(
      "the job's end delivered",
      () => (ofJob("job.completed").length > 0 ? ofJob("job.completed") : undefined),
    );
    const verified = new Webhook(hook.secret).verify(ended!.body, ended!.headers) as { data: { counts: object } };
    expect(verified.data.counts).toEqual({ total: 2, done: 1, failed: 1, linksRead: 2 });
    expect(() => new Webhook(hook.secret).verify(ended!.body.replace('"done":1', '"done":2'), ended!.headers))
      .toThrow();
    // Deliveries run several at once: the item's event may arrive after the job's end.
    const [failed] = await until(
      "the failed item delivered",
      () => (ofJob("job.item.failed").length > 0 ? ofJob("job.item.failed") : undefined),
    );
    const item = (new Webhook(hook.secret).verify(failed!.body, failed!.headers) as {
      data: { item: { position: number; problem: { code: string } } };
    }).data.item;
    expect(item).toMatchObject({ position: 2, problem: { code: "unsupported_platform" } });
    expect(ofJob("job.completed")).toHaveLength(1);
  });

  test("a job without a webhook tells every endpoint of the account that takes the event; a job may name only its own", async () => {
    const [key, stranger] = [await makeKey(store.db, "PRO"), await makeKey(store.db, "PRO")];
    const foreign = await register(stranger.plain);
    expect((await call(key.plain, "/api/v1/jobs", "POST", { urls: [postLink(2)], webhook: foreign.id })).status).toBe(
      400,
    );
  });

  test("after 500 the attempt comes again on the schedule, from an instance started after the first stopped", {
    timeout: scaled(120_000),
  }, async () => {
    const key = await makeKey(store.db, "PRO");
    const hook = await register(key.plain, ["job.completed"]);
    receiver.answers.push(500);
    const before = receiver.received.length;
    const job =
      (await (await call(key.plain, "/api/v1/jobs", "POST", { urls: [postLink(3)], webhook: hook.id })).json()) as {
        id: string;
      };
    await until("the first attempt", () => receiver.received.length > before);
    await queue.stop();
    ({ queue, app } = await startInstance());
    const attempts = await until("the second attempt", () => {
      const ofJob = receiver.received.slice(before).filter((each) => JSON.parse(each.body).data.id === job.id);
      return ofJob.length >= 2 ? ofJob : undefined;
    });
    expect(new Set(attempts.map((each) => each.headers["webhook-id"])).size).toBe(1);
    new Webhook(hook.secret).verify(attempts[1]!.body, attempts[1]!.headers);
  });

  test("after a rotation both secrets sign for a day", { timeout: scaled(120_000) }, async () => {
    const key = await makeKey(store.db, "PRO");
    const hook = await register(key.plain, ["job.completed"]);
    const rotated = (await (await call(key.plain, `/api/v1/webhooks/${hook.id}/rotate`, "POST")).json()) as {
      secret: string;
    };
    expect(rotated.secret).not.toBe(hook.secret);
    const job =
      (await (await call(key.plain, "/api/v1/jobs", "POST", { urls: [postLink(4)], webhook: hook.id })).json()) as {
        id: string;
      };
    const [ended] = await until("the job's end", () => {
      const found = receiver.events("job.completed").filter((each) => JSON.parse(each.body).data.id === job.id);
      return found.length > 0 ? found : undefined;
    });
    new Webhook(hook.secret).verify(ended!.body, ended!.headers);
    new Webhook(rotated.secret).verify(ended!.body, ended!.headers);
  });

  test.runIf(kind === "postgres")(
    "two instances on one PostgreSQL deliver each event once",
    { timeout: scaled(180_000) },
    async () => {
      const second = await startInstance(store.connectAgain());
      try {
        const key = await makeKey(store.db, "PRO");
        const hook = await register(key.plain, ["job.completed"]);
        const ids: string[] = [];
        for (let n = 10; n < 20; n += 1) {
          const client = n % 2 === 0 ? app : second.app;
          const answer = await client.post("/api/v1/jobs", key.plain, { urls: [postLink(n)], webhook: hook.id });
          ids.push(((await answer.json()) as { id: string }).id);
        }
        const ofJobs = () =>
          receiver.events("job.completed").filter((each) => ids.includes(JSON.parse(each.body).data.id));
        await until("ten jobs' ends", () => ofJobs().length >= 10);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(ofJobs()).toHaveLength(10);
        expect(new Set(ofJobs().map((each) => each.headers["webhook-id"])).size).toBe(10);
      } finally {
        await second.queue.stop();
      }
    },
  );
});
