// Profile links and short links in a job, through the app and the real queue on PGlite: a Bluesky
// profile becomes its own posts, newest first, each done as `post` reads it; a profile no reader lists
// (X without UserTweets, Threads) gives no item and the job says so; a short link is followed once,
// before its expansion, and its item is the post it leads to; `threads: false` takes a post link alone.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/jobs/queue.ts";
import {
  authorFeedPage,
  cardThread,
  type FakeBluesky,
  feedAuthor,
  linkOf,
  startFakeBluesky,
} from "../fakes/bluesky.ts";
import { type ShortLinkHost, startShortLinkHost } from "../fakes/short-links.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";

interface JobAnswer {
  status: string;
  request: { threads: boolean };
  complete: boolean;
  incomplete: string | null;
  counts: { total: number; done: number; failed: number };
  items: { url: string; status: string; post: { url: string } | null }[];
}

describe("profiles and short links in a job", () => {
  let store: TestStore;
  let bluesky: FakeBluesky;
  let shortLinks: ShortLinkHost;
  let queue: Queue;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, bluesky, shortLinks] = await Promise.all([
      openTestStore("pglite"),
      startFakeBluesky(),
      startShortLinkHost(),
    ]);
    queue = await startQueue(store.db, {
      retries: 1,
      retryDelayS: 1,
      heartbeatS: 10,
      pollS: 0.5,
      schema: store.queueSchema,
    }, console.error);
    app = buildTestApp(store.db, {
      env: {
        BLUESKY_APPVIEW_URL: bluesky.origin,
        ORIGIN_OVERRIDES: `${bluesky.originOverrides},vm.tiktok.com=${shortLinks.origin}`,
      },
      queue,
    });
    await app.jobs!.work();
    key = (await makeKey(store.db, "PRO")).plain;
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await Promise.all([store?.close(), bluesky?.close(), shortLinks?.close()]);
  });

  /** Posts a job of `urls` and waits for it to end. */
  async function endedJob(urls: string[], fields: Record<string, unknown> = {}): Promise<JobAnswer> {
    const created = await app.post("/api/v1/jobs", key, { urls, ...fields });
    expect(created.status).toBe(202);
    const location = created.headers.get("location")!;
    return until("the job to end", async () => {
      const job = (await (await app.get(location, key)).json()) as JobAnswer;
      return ["completed", "failed"].includes(job.status) ? job : undefined;
    }, 60_000);
  }

  test("a Bluesky profile becomes its own posts, newest first, each done", { timeout: 90_000 }, async () => {
    const job = await endedJob([`https://bsky.app/profile/${feedAuthor.handle}`]);
    const ownPosts = authorFeedPage("posts_and_author_threads", null, 100).feed
      .filter((item) => !("reason" in item))
      .map((item) => linkOf(item.post));
    expect(job.items.map((item) => item.url)).toEqual(ownPosts);
    expect(job.items.map((item) => item.post?.url)).toEqual(ownPosts);
    expect(job).toMatchObject({ status: "completed", complete: true, incomplete: null });
  });

  test("a profile no reader lists gives no item, and the job says which and why", { timeout: 90_000 }, async () => {
    const post = linkOf(authorFeedPage(null, null, 1).feed[0]!.post);
    const job = await endedJob(["https://x.com/jack", "https://www.threads.com/@zuck", post]);
    expect(job.items.map((item) => [item.url, item.status])).toEqual([[post, "done"]]);
    expect(job.complete).toBe(false);
    expect(job.incomplete).toBe(
      "https://x.com/jack: this service cannot list the posts of this X (Twitter) profile, feed or list; pass the links of its posts; " +
        "https://www.threads.com/@zuck: this service cannot list the posts of this Threads profile, feed or list; pass the links of its posts",
    );
  });

  test(
    "with threads false, a post link is the post alone; a profile still its posts",
    { timeout: 90_000 },
    async () => {
      const root = linkOf(cardThread.thread.post);
      const before = bluesky.calls.filter((call) => call.startsWith("app.bsky.feed.getPostThread")).length;
      const job = await endedJob([root], { threads: false });
      expect(job.items.map((item) => [item.url, item.status])).toEqual([[root, "done"]]);
      expect(job).toMatchObject({ complete: true, request: { threads: false } });
      // The thread was not read: the one getPostThread is the item's own record (depth 0).
      const asked = bluesky.calls.filter((call) => call.startsWith("app.bsky.feed.getPostThread")).slice(before);
      expect(asked.map((call) => new URLSearchParams(call.split("?")[1]).get("depth"))).toEqual(["0"]);
      const profile = await endedJob([`https://bsky.app/profile/${feedAuthor.handle}`], { threads: false });
      expect(profile.counts.total).toBe(20);
    },
  );

  test("a short link is followed once, before its expansion: its item is the post it leads to", {
    timeout: 90_000,
  }, async () => {
    const photo = "https://www.tiktok.com/@breadlab/photo/7436185392745209118";
    shortLinks.answer("/ZMslide/", 301, photo);
    shortLinks.asked.length = 0;
    const job = await endedJob(["https://vm.tiktok.com/ZMslide/"]);
    expect(job.items.map((item) => item.url)).toEqual([photo]);
    expect(shortLinks.asked).toEqual(["/ZMslide/"]);
  });
});
