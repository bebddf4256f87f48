// The jobs' operations against a local X that answers each post after a delay, on both stores:
// a job of 100 links completes with its 100 records in order, each counted once against the key;
// a FREE key's job of more links than its day has left is 429 up front; another account's job is
// 404; DELETE cancels what has not run.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { type FakeXUpstream, fixturesDir, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const queueSettings = { retries: 2, retryDelayS: 1, heartbeatS: 10, pollS: 2 };
const postLink = (n: number) => `https://x.com/nasa/status/${numberedPostId(n)}`;

interface JobAnswer {
  id: string;
  status: string;
  finishedAt: string | null;
  counts: { total: number; done: number; failed: number };
  items: {
    position: number;
    url: string;
    status: string;
    post: { id: string; downloadUrl: string; text: string | null } | null;
    problem: { code: string; detail: string } | null;
  }[];
  nextCursor: string | null;
}

describe.each(storeKinds)("jobs on %s", (kind) => {
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
    // X's posts as syndication shows them: no thread is read (GraphQL off), so an item is its link's one read.
    app = buildTestApp(store.db, { env: { X_SYNDICATION_URL: x.syndicationUrl, X_GRAPHQL_URL: "off" }, queue });
    await app.jobs!.work();
  }, scaled(120_000));
  afterAll(async () => {
    await queue?.stop();
    await Promise.all([store?.close(), x?.close()]);
  });

  const submit = (key: string, body: unknown) => app.post("/api/v1/jobs", key, body);
  const show = async (key: string, path: string) => (await (await app.get(path, key)).json()) as JobAnswer;

  test("a job of 100 links completes with their records in order, each item counted once", {
    timeout: scaled(120_000),
  }, async () => {
    x.setMode("syndication", { kind: "delay", ms: 1000 });
    const key = await makeKey(store.db, "GOLD");
    const urls = Array.from({ length: 100 }, (_, at) => postLink(at + 1));
    const created = await submit(key.plain, { urls });
    expect(created.status).toBe(202);
    const location = created.headers.get("location")!;
    const job = (await created.json()) as JobAnswer;
    expect(location).toBe(`/api/v1/jobs/${job.id}`);
    expect(job.status).toBe("queued");

    const finished = await until("the job to complete", async () => {
      const now = await show(key.plain, location);
      return now.status === "completed" ? now : undefined;
    }, 100_000);
    expect(finished.items.filter((item) => item.status !== "done").map((item) => JSON.stringify(item)).slice(0, 3))
      .toEqual([]);
    expect(finished.counts).toEqual({ total: 100, done: 100, failed: 0, linksRead: 100 });
    expect(finished.items.map((item) => item.position)).toEqual(urls.map((_, at) => at + 1));
    expect(finished.items.map((item) => item.url)).toEqual(urls);
    expect(finished.items.map((item) => item.post?.id)).toEqual(urls.map((_, at) => numberedPostId(at + 1)));
    expect(finished.items.every((item) => item.post!.downloadUrl.includes("/api/v1/download?"))).toBe(true);
    expect(finished.nextCursor).toBeNull();
    expect(x.calls("/tweet-result")).toBeGreaterThanOrEqual(100);

    // Each item is one call of the key, the POST and every GET are one each.
    const counted = await store.db.query<{ n: number }>(
      "SELECT coalesce(sum(count), 0)::int AS n FROM usage_minutes WHERE api_key_id = $1",
      [key.id],
    );
    const items = await store.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM job_items WHERE job_id = $1 AND counted_at IS NOT NULL",
      [job.id],
    );
    expect(items[0]!.n).toBe(100);
    const usage = (await (await app.get("/api/v1/usage", key.plain)).json()) as { remaining: number };
    expect(100_000 - usage.remaining).toBe(counted[0]!.n + 1);
    x.setMode("syndication", { kind: "normal" });
  });

  test("pages through a job's items with cursor, and lists the account's jobs newest first", {
    timeout: scaled(60_000),
  }, async () => {
    const key = await makeKey(store.db, "GOLD");
    const first = (await (await submit(key.plain, { urls: [postLink(1)] })).json()) as JobAnswer;
    app.clock.advance(1000);
    const urls = Array.from({ length: 120 }, (_, at) => postLink(at + 1));
    const second = (await (await submit(key.plain, { urls })).json()) as JobAnswer;
    await until(
      "the long job to complete",
      async () => (await show(key.plain, `/api/v1/jobs/${second.id}`)).status === "completed",
    );
    const page1 = await show(key.plain, `/api/v1/jobs/${second.id}`);
    expect(page1.items).toHaveLength(100);
    expect(page1.nextCursor).toBe("100");
    const page2 = await show(key.plain, `/api/v1/jobs/${second.id}?cursor=${page1.nextCursor}`);
    expect(page2.items.map((item) => item.position)).toEqual(Array.from({ length: 20 }, (_, at) => 101 + at));
    expect(page2.nextCursor).toBeNull();
    const list = (await (await app.get("/api/v1/jobs", key.plain)).json()) as { jobs: { id: string }[] };
    expect(list.jobs.map((job) => job.id)).toEqual([second.id, first.id]);
    expect((await app.get(`/api/v1/jobs/${second.id}?cursor=abc`, key.plain)).status).toBe(400);
    // Of the right form, but past the latest time a Date holds: 400, not 500.
    const farCursor = `9999999999999999~${crypto.randomUUID()}`;
    expect((await app.get(`/api/v1/jobs?cursor=${farCursor}`, key.plain)).status).toBe(400);
  });

  test("a FREE key's job of more links than its day has left is 429 up front, and not counted", async () => {
    const key = await makeKey(store.db, "FREE");
    // 95 of the day's 100 calls are used; the POST itself is the 96th, so 4 are left for items.
    await store.db.query("INSERT INTO usage_minutes (api_key_id, minute, count) VALUES ($1, $2, 95)", [
      key.id,
      app.clock.now(),
    ]);
    const refused = await submit(key.plain, { urls: Array.from({ length: 5 }, (_, at) => postLink(at + 1)) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^[0-9]+$/);
    const problem = (await refused.json()) as { code: string; detail: string };
    expect(problem.code).toBe("quota_exceeded");
    expect(problem.detail).toContain("4 calls left");
    const jobs = await store.db.query("SELECT id FROM jobs WHERE api_key_id = $1", [key.id]);
    expect(jobs).toEqual([]);
    const usage = (await (await app.get("/api/v1/usage", key.plain)).json()) as { remaining: number };
    expect(usage.remaining).toBe(4);
    // A FREE job holds at most 100 items.
    const tooMany = await submit(key.plain, { urls: Array.from({ length: 101 }, (_, at) => postLink(at + 1)) });
    expect(tooMany.status).toBe(400);
  });

  test("a key whose day is spent still shows, lists and cancels its own jobs; its other calls are 429", async () => {
    x.setMode("syndication", { kind: "delay", ms: 3000 });
    const key = await makeKey(store.db, "FREE");
    const job = (await (await submit(key.plain, { urls: [postLink(700), postLink(701), postLink(702)] }))
      .json()) as JobAnswer;
    // The day spent: its 100 calls, the POST's among them.
    await store.db.query(
      `INSERT INTO usage_minutes (api_key_id, minute, count) VALUES ($1, date_trunc('minute', $2::timestamptz), 100)
       ON CONFLICT (api_key_id, minute) DO UPDATE SET count = 100`,
      [key.id, app.clock.now()],
    );
    const path = `/api/v1/jobs/${job.id}`;
    const answers = [
      await app.get(path, key.plain),
      await app.get("/api/v1/jobs", key.plain),
      await app.get(path, key.plain, { method: "DELETE" }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get("x-ratelimit-remaining"))).toEqual(["0", "0", "0"]);
    // Cancelled, or failed already: its items that ran past the day failed with quota_exceeded.
    expect(["cancelled", "failed"]).toContain(((await answers[2]!.json()) as JobAnswer).status);
    // Past the day they are counted in the burst minute alone: the day's count is where it was.
    const counted = await store.db.query<{ n: number }>(
      "SELECT coalesce(sum(count), 0)::int AS n FROM usage_minutes WHERE api_key_id = $1",
      [key.id],
    );
    expect(counted[0]!.n).toBe(100);
    expect((await app.get("/api/v1/usage", key.plain)).status).toBe(429);
    expect((await submit(key.plain, { urls: [postLink(703)] })).status).toBe(429);
    // The burst minute still holds them: FREE's 10 calls a minute, 4 of which are made.
    const more = await Promise.all(Array.from({ length: 7 }, () => app.get(path, key.plain)));
    expect(more.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 429]);
    x.setMode("syndication", { kind: "normal" });
  });

  test("a post whose text holds U+0000 and a lone surrogate is done, its text cleaned as it is stored", {
    timeout: scaled(60_000),
  }, async () => {
    const recorded = JSON.parse(
      readFileSync(path.join(fixturesDir, "syndication", "video_nasa_1491475671058681863.json"), "utf8"),
    );
    const text = "Venus\u0000 glows \ud800 on its plains";
    x.setMode("syndication", {
      kind: "json",
      body: { ...recorded, id_str: numberedPostId(900), text, display_text_range: [0, text.length] },
    });
    const key = await makeKey(store.db, "PRO");
    const job = (await (await submit(key.plain, { urls: [postLink(900)], threads: false })).json()) as JobAnswer;
    const finished = await until("the job to finish", async () => {
      const now = await show(key.plain, `/api/v1/jobs/${job.id}`);
      return now.finishedAt ? now : undefined;
    });
    x.setMode("syndication", { kind: "normal" });
    expect(finished.items.map((item) => [item.status, item.problem?.code ?? null])).toEqual([["done", null]]);
    expect(finished.items[0]!.post!.text).toBe("Venus glows \ufffd on its plains");
  });

  test("another account's job is 404, to show, to cancel and in the list", async () => {
    const [owner, stranger] = await Promise.all([makeKey(store.db, "PRO"), makeKey(store.db, "PRO")]);
    const job = (await (await submit(owner.plain, { urls: [postLink(1)] })).json()) as JobAnswer;
    const path = `/api/v1/jobs/${job.id}`;
    expect((await app.get(path, stranger.plain)).status).toBe(404);
    expect((await app.get(path, stranger.plain, { method: "DELETE" })).status).toBe(404);
    expect((await app.get(`/api/v1/jobs/${crypto.randomUUID()}`, owner.plain)).status).toBe(404);
    const list = (await (await app.get("/api/v1/jobs", stranger.plain)).json()) as { jobs: unknown[] };
    expect(list.jobs).toEqual([]);
    expect((await app.get(path, owner.plain)).status).toBe(200);
  });

  test("a body that is no job is 400 and names what is wrong", async () => {
    const key = await makeKey(store.db, "PRO");
    const answers = await Promise.all([
      submit(key.plain, { urls: [] }),
      submit(key.plain, { urls: ["ftp://example.com/a"] }),
      submit(key.plain, { urls: [postLink(1)], audio: "flac" }),
      submit(key.plain, { urls: [postLink(1)], extra: true }),
      app.get("/api/v1/jobs", key.plain, { method: "POST", body: "not json" }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400]);
  });

  test("transcriptLang or transcriptFormat without transcripts: true is 400 naming the field, and makes no job", async () => {
    const key = await makeKey(store.db, "PRO");
    const asked = [
      { urls: [postLink(1)], transcriptLang: "en" },
      { urls: [postLink(1)], transcripts: false, transcriptFormat: "srt" },
      { urls: [postLink(1)], transcriptFormat: "vtt" },
    ];
    for (const body of asked) {
      const answer = await submit(key.plain, body);
      expect(answer.status).toBe(400);
      const problem = (await answer.json()) as { code: string; detail: string };
      expect(problem.code).toBe("invalid_request");
      expect(problem.detail).toContain(`\`${"transcriptLang" in body ? "transcriptLang" : "transcriptFormat"}\``);
      expect(problem.detail).toContain('"transcripts": true');
    }
    expect(((await (await app.get("/api/v1/jobs", key.plain)).json()) as { jobs: unknown[] }).jobs).toEqual([]);
  });

  /** POSTs a job body of 20 MB of links with `key`, made as it is read: the answer, and how much of it was taken. */
  async function bigBody(key: string): Promise<{ status: number; detail: string; sent: number }> {
    const chunk = new TextEncoder().encode(`"${"https://x.com/a/status/1".padEnd(65_534, "1")}",`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{"urls": [')),
      pull(controller) {
        if (sent >= 20 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    const answer = await app.get("/api/v1/jobs", key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    return { status: answer.status, detail: ((await answer.json()) as { detail: string }).detail, sent };
  }

  test("a FREE key's body of 20 MB is 400 once it passes the tier's bound, long before it is read whole", async () => {
    const key = await makeKey(store.db, "FREE");
    const answer = await bigBody(key.plain);
    expect(answer.status).toBe(400);
    expect(answer.detail).toContain("FREE key is at most 414496 bytes");
    expect(answer.sent).toBeLessThan(1024 * 1024);
  });

  test("ten FREE bodies of 20 MB at once are each refused early, and the process's memory stays where it was", async () => {
    const key = await makeKey(store.db, "FREE");
    // The app runs in this process: its memory is this process's.
    const before = process.memoryUsage().rss;
    const answers = await Promise.all(Array.from({ length: 10 }, () => bigBody(key.plain)));
    const grown = process.memoryUsage().rss - before;
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(400));
    // Ten refused bodies hold ten bounds' worth (4 MB) at most while they are read: 0 MB measured, where ten read
    // whole (GOLD's bound) left it 58-70 MB higher in this process. The rest of the bound is the machine's noise.
    expect(grown).toBeLessThan(32 * 1024 * 1024);
    expect(Math.max(...answers.map((answer) => answer.sent))).toBeLessThan(1024 * 1024);
  });

  test("DELETE cancels the items that have not run; those keep no record", { timeout: scaled(60_000) }, async () => {
    x.setMode("syndication", { kind: "delay", ms: 3000 });
    const key = await makeKey(store.db, "FREE");
    const urls = Array.from({ length: 10 }, (_, at) => postLink(500 + at));
    // Without threads a post link is not read as its thread: every item is made at once, and each reads its
    // post (3 s here), two at a time, so that items wait their turn when the job is cancelled.
    const job = (await (await submit(key.plain, { urls, threads: false })).json()) as JobAnswer;
    const path = `/api/v1/jobs/${job.id}`;
    // A FREE key's burst is 10 calls a minute: the store is watched, not the API.
    const statusOf = async () =>
      (await store.db.query<{ status: string }>("SELECT status FROM jobs WHERE id = $1", [job.id]))[0]!.status;
    const itemsIn = async (status: string) =>
      (await store.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM job_items WHERE job_id = $1 AND status = $2",
        [job.id, status],
      ))[0]!.n;
    const itemsRunning = () => itemsIn("running");
    // Items are made as their links are read, and a read needs one of the key's two slots, which the first items
    // hold for 3 s: the job is cancelled once some item runs and another waits its turn.
    await until(
      "an item to run and another to wait",
      async () => (await itemsRunning()) > 0 && (await itemsIn("queued")) > 0,
    );
    expect(await statusOf()).toBe("running");
    const cancelled = await app.get(path, key.plain, { method: "DELETE" });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as JobAnswer).status).toBe("cancelled");
    // The items that were running end; none of the others runs.
    await until("the running items to end", async () => (await itemsRunning()) === 0);
    const after = await show(key.plain, path);
    const cancelledItems = after.items.filter((item) => item.status === "cancelled");
    // A FREE key's items run two at a time: at most two had begun. The links a job had not read when it was
    // cancelled give no item at all (they are read a few at a time), so the others are cancelled or never made.
    expect(after.items.filter((item) => item.status !== "cancelled").length).toBeLessThanOrEqual(2);
    expect(cancelledItems.length).toBeGreaterThanOrEqual(1);
    expect(cancelledItems.every((item) => item.post === null)).toBe(true);
    expect(after.status).toBe("cancelled");
    x.setMode("syndication", { kind: "normal" });
  });
});
