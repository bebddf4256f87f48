// Profile links and short links in a job, through the app and the real queue on PGlite: a Bluesky
// profile becomes its own posts, newest first, each done as `post` reads it; an Instagram profile its
// posts as gallery-dl pages through them, and an X profile its own posts through X's UserTweets, with the
// operator's sessions, and without them no item, the job saying why; a profile no reader lists (an X
// list, Threads) gives no item and the job says so; a short link is followed once, before its expansion,
// and its item is the post it leads to; `threads: false` takes a post link alone.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
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
import { instagramProfile, instagramProfilePosts } from "../fakes/instagram-profile.ts";
import { type PhotoPlatforms, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { type ShortLinkHost, startShortLinkHost } from "../fakes/short-links.ts";
import { fakeQueryIds, type FakeXUpstream, startFakeXUpstream, xSession } from "../fakes/x-upstream.ts";
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
  let photos: PhotoPlatforms;
  let x: FakeXUpstream;
  let queue: Queue;
  let app: TestApp;
  let key: string;
  /** The operator's cookie file, read anew for every run: a test writes the sessions it gives. */
  let cookiesDir: string;
  const cookiesFile = () => path.join(cookiesDir, "cookies.txt");
  const giveSessions = (...lines: string[]) =>
    writeFile(cookiesFile(), ["# Netscape HTTP Cookie File", ...lines, ""].join("\n"));

  beforeAll(async () => {
    [store, bluesky, shortLinks, photos, x, cookiesDir] = await Promise.all([
      openTestStore("pglite"),
      startFakeBluesky(),
      startShortLinkHost(),
      startPhotoPlatforms(),
      startFakeXUpstream(),
      mkdtemp(path.join(tmpdir(), "profiles-cookies-")),
    ]);
    await giveSessions();
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
        ORIGIN_OVERRIDES: `${bluesky.originOverrides},vm.tiktok.com=${shortLinks.origin},${photos.originOverrides}`,
        GALLERY_DL_CA_FILE: photos.caFile,
        COOKIES_FILE: cookiesFile(),
        X_SYNDICATION_URL: x.syndicationUrl,
        X_GRAPHQL_URL: x.url,
        ...fakeQueryIds,
      },
      queue,
      // Each post of the Instagram profile is a run of gallery-dl: warm, they take a tenth of the time.
      extractionHost: true,
    });
    await app.jobs!.work();
    key = (await makeKey(store.db, "PRO")).plain;
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await app?.extractor.close();
    await Promise.all([store?.close(), bluesky?.close(), shortLinks?.close(), photos?.close(), x?.close()]);
    if (cookiesDir) await rm(cookiesDir, { recursive: true, force: true });
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

  test(
    "an Instagram profile without the operator's session gives no item: the job says Instagram wants a sign-in",
    { timeout: 90_000 },
    async () => {
      await giveSessions();
      const job = await endedJob([instagramProfile.link]);
      // No item ran, so none is done: the job ends failed, saying why.
      expect(job).toMatchObject({ status: "failed", complete: false, counts: { total: 0 } });
      expect(job.incomplete).toBe(
        `${instagramProfile.link}: Instagram answered with its sign-in page: it shows a profile's posts only to a signed-in account. ` +
          "The operator gives this service one with the sessionid cookie of a signed-in browser in COOKIES_FILE, or a fresh one when it has expired; or pass the links of its posts",
      );
    },
  );

  test(
    "an Instagram profile with the operator's session becomes its posts, newest first, over gallery-dl's pages",
    { timeout: 90_000 },
    async () => {
      await giveSessions(".instagram.com\tTRUE\t/\tTRUE\t0\tsessionid\tfake-instagram-session");
      photos.instagramProfile.pagesAsked.length = 0;
      const job = await endedJob([instagramProfile.link], { threads: false });
      expect(job.items.map((item) => item.url)).toEqual(instagramProfilePosts);
      expect(job.items.map((item) => item.post?.url)).toEqual(instagramProfilePosts);
      expect(job).toMatchObject({ status: "completed", complete: true, incomplete: null });
      // 12 a page, as gallery-dl asks: three pages for 30 posts.
      expect(photos.instagramProfile.pagesAsked).toHaveLength(3);
    },
  );

  test("an X profile without the operator's session gives no item: the job says X wants a sign-in", {
    timeout: 90_000,
  }, async () => {
    await giveSessions();
    const job = await endedJob(["https://x.com/XDevelopers"]);
    expect(job).toMatchObject({ status: "failed", complete: false, counts: { total: 0 } });
    expect(job.incomplete).toBe(
      "https://x.com/XDevelopers: X shows a profile's posts only to a signed-in account, and this service has no X session (COOKIES_FILE with x.com's auth_token and ct0); pass the links of its posts",
    );
  });

  test("an X profile with the operator's session becomes its own posts, newest first, each done", {
    timeout: 90_000,
  }, async () => {
    await giveSessions(
      `.x.com\tTRUE\t/\tTRUE\t1900000000\tauth_token\t${xSession.authToken}`,
      `.x.com\tTRUE\t/\tTRUE\t1900000000\tct0\t${xSession.ct0}`,
    );
    // The timeline's tweets are recorded as X's GraphQL shows them: their items are read there, as when
    // syndication refuses.
    x.setMode("syndication", { kind: "status", status: 503 });
    try {
      const job = await endedJob(["https://x.com/XDevelopers"]);
      // The recorded page's own posts (a conversation of two, two more; 15 retweets left out), the four of the
      // older page the fake makes after it, and the pinned post at its own time.
      const own = ["2082640276389249363", "2082640274845811115", "2074882755905585583", "2072126677535346779"];
      const ids = [...own, ...own.map((id) => String(BigInt(id) - 20_000_000_000_000_000n)), "2019881223666233717"];
      const links = ids.map((id) => `https://x.com/XDevelopers/status/${id}`);
      expect(job.items.map((item) => [item.url, item.status])).toEqual(links.map((link) => [link, "done"]));
      expect(job.items.map((item) => item.post?.url)).toEqual(links);
      expect(job).toMatchObject({ status: "completed", complete: true, incomplete: null });
    } finally {
      x.setMode("syndication", { kind: "normal" });
    }
  });

  test("a profile no reader lists gives no item, and the job says which and why", { timeout: 90_000 }, async () => {
    const post = linkOf(authorFeedPage(null, null, 1).feed[0]!.post);
    const job = await endedJob(["https://x.com/i/lists/123", "https://www.threads.com/@zuck", post]);
    expect(job.items.map((item) => [item.url, item.status])).toEqual([[post, "done"]]);
    expect(job.complete).toBe(false);
    expect(job.incomplete).toBe(
      "https://x.com/i/lists/123: this service cannot list the posts of this X (Twitter) profile, feed or list; pass the links of its posts; " +
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
