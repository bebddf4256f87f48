// A job's links expanded through yt-dlp (platforms/ytdlp/expansion.ts) against the local media
// site: a feed of 250 entries, which yt-dlp lists as a playlist, becomes 250 items in its order,
// past PLAYLIST_MAX_ITEMS; a page of one video stays one item beside them.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/jobs/queue.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";

interface JobAnswer {
  id: string;
  status: string;
  counts: { total: number; done: number; failed: number };
  items: {
    position: number;
    url: string;
    status: string;
    post: { url: string } | null;
    problem: { code: string } | null;
  }[];
  nextCursor: string | null;
}

describe("a job's expansion through yt-dlp", () => {
  let store: TestStore;
  let site: MediaSite;
  let queue: Queue;
  let app: TestApp;

  beforeAll(async () => {
    [store, site] = await Promise.all([openTestStore("pglite"), startMediaSite()]);
    queue = await startQueue(store.db, {
      retries: 1,
      retryDelayS: 1,
      heartbeatS: 10,
      pollS: 0.5,
      schema: store.queueSchema,
    }, console.error);
    app = buildTestApp(store.db, { env: { EXTRA_PAGE_HOSTS: site.host }, queue });
    await app.jobs!.work();
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await Promise.all([store?.close(), site?.close()]);
  });

  const submit = (key: string, urls: string[]) =>
    app.get("/api/v1/jobs", key, { method: "POST", body: JSON.stringify({ urls }) });
  const show = async (key: string, path: string) => (await (await app.get(path, key)).json()) as JobAnswer;

  test("a feed of 250 entries becomes 250 items in its order", { timeout: 180_000 }, async () => {
    const key = await makeKey(store.db, "PRO");
    const created = await submit(key.plain, [site.pages.feed(250)]);
    expect(created.status).toBe(202);
    const path = created.headers.get("location")!;
    const expanded = await until("the feed's expansion", async () => {
      const job = await show(key.plain, path);
      return job.counts.total > 0 ? job : undefined;
    }, 150_000);
    // Its items are not what this test is about: the 250 extractions are cancelled.
    await app.get(path, key.plain, { method: "DELETE" });
    expect(expanded.counts.total).toBe(250);
    const urls: string[] = [];
    for (let cursor: string | null = "0"; cursor !== null;) {
      const page: JobAnswer = await show(key.plain, `${path}?cursor=${cursor}`);
      urls.push(...page.items.map((item) => item.url));
      cursor = page.nextCursor;
    }
    expect(urls).toEqual(Array.from({ length: 250 }, (_, at) => `${site.origin}/progressive.html?entry=${at + 1}`));
  });

  test("a page of one video stays one item, and every item's record comes in order", {
    timeout: 180_000,
  }, async () => {
    const key = await makeKey(store.db, "PRO");
    const created = await submit(key.plain, [site.pages.progressive, site.pages.feed(2)]);
    const path = created.headers.get("location")!;
    const done = await until("the job to complete", async () => {
      const job = await show(key.plain, path);
      return job.status === "completed" ? job : undefined;
    }, 150_000);
    expect(done.items.map((item) => [item.url, item.status])).toEqual([
      [site.pages.progressive, "done"],
      [`${site.origin}/progressive.html?entry=1`, "done"],
      [`${site.origin}/progressive.html?entry=2`, "done"],
    ]);
    expect(done.items.map((item) => item.post?.url)).toEqual(done.items.map((item) => item.url));
  });

  test("a link that cannot be expanded is one item, whose own problem shows, and the job says so", {
    timeout: 180_000,
  }, async () => {
    const key = await makeKey(store.db, "PRO");
    const created = await submit(key.plain, [site.pages.missing]);
    const path = created.headers.get("location")!;
    const ended = await until("the job to end", async () => {
      const job = (await (await app.get(path, key.plain)).json()) as JobAnswer & { incomplete: string | null };
      return job.status === "failed" ? job : undefined;
    }, 150_000);
    expect(ended.items.map((item) => [item.url, item.status, item.problem?.code])).toEqual([
      [site.pages.missing, "failed", "not_found"],
    ]);
    expect(ended.incomplete).toContain(`${site.pages.missing} could not be expanded (not_found)`);
  });
});
