// A job's links expanded, through the app and the real queue on PGlite. Through yt-dlp
// (platforms/tools/ytdlp/expansion.ts) against the local media site: a feed of 250 entries, which yt-dlp
// lists as a playlist, becomes 250 items in its order, past PLAYLIST_MAX_ITEMS, their links without
// the fragment yt-dlp adds to an entry with a guid; one of 101 in a FREE job is 100, and not
// complete; a page of one video stays one item beside them; a feed's items take the feed's title
// for each as their text. Profiles and short links: a Bluesky profile becomes its own posts,
// newest first, each done as `post` reads it; an Instagram profile its posts as gallery-dl pages
// through them, and an X profile its own posts through X's UserTweets, with the operator's sessions,
// and without them no item, the job saying why; a profile no reader lists (an X list, Threads) gives
// no item and the job says so; a short link is followed once, before its expansion, and its item is
// the post it leads to; `threads: false` takes a post link alone.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  authorFeedPage,
  cardThread,
  type FakeBluesky,
  feedAuthor,
  linkOf,
  startFakeBluesky,
} from "../fakes/bluesky.ts";
import { instagramProfile, instagramProfilePosts } from "../fakes/instagram-profile.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { type PhotoPlatforms, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { type ShortLinkHost, startShortLinkHost } from "../fakes/short-links.ts";
import { fakeQueryIds, type FakeXUpstream, startFakeXUpstream, xSession } from "../fakes/x-upstream.ts";
import { makeKey } from "../helpers/app.ts";
import { completed, ended, type JobService, startJobService } from "../helpers/job-service.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

interface JobAnswer {
  id: string;
  status: string;
  request: { threads: boolean };
  complete: boolean;
  incomplete: string | null;
  counts: { total: number; done: number; failed: number };
  items: {
    position: number;
    url: string;
    status: string;
    post: { url: string; text: string | null } | null;
    problem: { code: string } | null;
  }[];
  nextCursor: string | null;
}

let service: JobService;
let site: MediaSite;
let bluesky: FakeBluesky;
let shortLinks: ShortLinkHost;
let photos: PhotoPlatforms;
let x: FakeXUpstream;

beforeAll(async () => {
  [site, bluesky, shortLinks, photos, x] = await Promise.all([
    startMediaSite(),
    startFakeBluesky(),
    startShortLinkHost(),
    startPhotoPlatforms(),
    startFakeXUpstream(),
  ]);
  service = await startJobService({
    EXTRA_PAGE_HOSTS: site.host,
    BLUESKY_APPVIEW_URL: bluesky.origin,
    ORIGIN_OVERRIDES: `${bluesky.originOverrides},vm.tiktok.com=${shortLinks.origin},${photos.originOverrides}`,
    GALLERY_DL_CA_FILE: photos.caFile,
    X_SYNDICATION_URL: x.syndicationUrl,
    X_GRAPHQL_URL: x.url,
    ...fakeQueryIds,
  }, { cookies: true, extractionHost: true });
}, scaled(120_000));
afterAll(async () => {
  await service?.close();
  await Promise.all([site?.close(), bluesky?.close(), shortLinks?.close(), photos?.close(), x?.close()]);
});

/** Posts a job of `urls` (and `fields`) with `key`; its location. */
async function submit(key: string, urls: string[], fields: Record<string, unknown> = {}): Promise<string> {
  const created = await service.app.post("/api/v1/jobs", key, { urls, ...fields });
  expect(created.status).toBe(202);
  return created.headers.get("location")!;
}
const show = async (key: string, path: string) => (await (await service.app.get(path, key)).json()) as JobAnswer;

describe("a job's expansion through yt-dlp", () => {
  test("a feed of 250 entries becomes 250 items in its order", { timeout: scaled(180_000) }, async () => {
    const key = (await makeKey(service.store.db, "PRO")).plain;
    const path = await submit(key, [site.pages.feed(250)]);
    const expanded = await service.jobWhen<JobAnswer>(key, path, (job) => job.counts.total > 0, 150_000);
    // Its items are not what this test is about: the 250 extractions are cancelled.
    await service.app.get(path, key, { method: "DELETE" });
    expect(expanded.counts.total).toBe(250);
    const urls: string[] = [];
    for (let cursor: string | null = "0"; cursor !== null;) {
      const page: JobAnswer = await show(key, `${path}?cursor=${cursor}`);
      urls.push(...page.items.map((item) => item.url));
      cursor = page.nextCursor;
    }
    expect(urls).toEqual(Array.from({ length: 250 }, (_, at) => `${site.origin}/progressive.html?entry=${at + 1}`));
  });

  test("a feed of 101 posts in a FREE job is 100 items, and the job says it is not complete", {
    timeout: scaled(180_000),
  }, async () => {
    const key = await makeKey(service.store.db, "FREE");
    const path = await submit(key.plain, [site.pages.feed(101)]);
    // A FREE key's burst is 10 calls a minute: the store is watched until the job is expanded, not the API.
    await until("the job's expansion", async () => {
      const [row] = await service.store.db.query<{ expanded_at: Date | null }>(
        "SELECT expanded_at FROM jobs WHERE id = $1",
        [path.split("/").at(-1)],
      );
      return row?.expanded_at ?? undefined;
    }, 150_000);
    await service.app.get(path, key.plain, { method: "DELETE" });
    const job = await show(key.plain, path);
    expect(job.counts.total).toBe(100);
    expect(job.complete).toBe(false);
    expect(job.incomplete).toBe(`${site.pages.feed(101)}: it has more posts than the 100 a job may hold`);
    expect(job.items.map((item) => item.url)).toEqual(
      Array.from({ length: 100 }, (_, at) => `${site.origin}/progressive.html?entry=${at + 1}`),
    );
  });

  test("a page of one video stays one item, and every item's record comes in order", {
    timeout: scaled(180_000),
  }, async () => {
    const key = (await makeKey(service.store.db, "PRO")).plain;
    const path = await submit(key, [site.pages.progressive, site.pages.feed(2)]);
    const done = await service.jobWhen<JobAnswer>(key, path, completed, 150_000);
    expect(done.items.map((item) => [item.url, item.status])).toEqual([
      [site.pages.progressive, "done"],
      [`${site.origin}/progressive.html?entry=1`, "done"],
      [`${site.origin}/progressive.html?entry=2`, "done"],
    ]);
    expect(done.items.map((item) => item.post?.url)).toEqual(done.items.map((item) => item.url));
  });

  test("a feed's items take the feed's title for each as their text, not their page's", {
    timeout: scaled(180_000),
  }, async () => {
    const key = (await makeKey(service.store.db, "PRO")).plain;
    const path = await submit(key, [site.pages.feed(2), site.pages.progressive]);
    const done = await service.jobWhen<JobAnswer>(key, path, completed, 150_000);
    // The feed titles its items "Clip <n>"; yt-dlp titles their page "Progressive test clip (1)", as the page alone.
    expect(done.items.map((item) => [item.status, item.post?.text])).toEqual([
      ["done", "Clip 1"],
      ["done", "Clip 2"],
      ["done", "Progressive test clip (1)"],
    ]);
  });

  test("a link that cannot be expanded is one item, whose own problem shows, and the job says so", {
    timeout: scaled(180_000),
  }, async () => {
    const key = (await makeKey(service.store.db, "PRO")).plain;
    const path = await submit(key, [site.pages.missing]);
    const failed = await service.jobWhen<JobAnswer>(key, path, (job) => job.status === "failed", 150_000);
    expect(failed.items.map((item) => [item.url, item.status, item.problem?.code])).toEqual([
      [site.pages.missing, "failed", "not_found"],
    ]);
    expect(failed.incomplete).toContain(`${site.pages.missing} could not be expanded (not_found)`);
  });
});

describe("profiles and short links in a job", () => {
  let key: string;
  beforeAll(async () => {
    key = (await makeKey(service.store.db, "PRO")).plain;
  });

  /** Posts a job of `urls` and waits for it to end. */
  async function endedJob(urls: string[], fields: Record<string, unknown> = {}): Promise<JobAnswer> {
    return service.jobWhen<JobAnswer>(key, await submit(key, urls, fields), ended, 60_000);
  }

  test("a Bluesky profile becomes its own posts, newest first, each done", { timeout: scaled(90_000) }, async () => {
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
    { timeout: scaled(90_000) },
    async () => {
      await service.giveSessions();
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
    { timeout: scaled(90_000) },
    async () => {
      await service.giveSessions(".instagram.com\tTRUE\t/\tTRUE\t0\tsessionid\tfake-instagram-session");
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
    timeout: scaled(90_000),
  }, async () => {
    await service.giveSessions();
    const job = await endedJob(["https://x.com/XDevelopers"]);
    expect(job).toMatchObject({ status: "failed", complete: false, counts: { total: 0 } });
    expect(job.incomplete).toBe(
      "https://x.com/XDevelopers: X shows a profile's posts only to a signed-in account, and this service has no X session (COOKIES_FILE with x.com's auth_token and ct0); pass the links of its posts",
    );
  });

  test("an X profile with the operator's session becomes its own posts, newest first, each done", {
    timeout: scaled(90_000),
  }, async () => {
    await service.giveSessions(
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

  test(
    "a profile no reader lists gives no item, and the job says which and why",
    { timeout: scaled(90_000) },
    async () => {
      const post = linkOf(authorFeedPage(null, null, 1).feed[0]!.post);
      const job = await endedJob(["https://x.com/i/lists/123", "https://www.threads.com/@zuck", post]);
      expect(job.items.map((item) => [item.url, item.status])).toEqual([[post, "done"]]);
      expect(job.complete).toBe(false);
      expect(job.incomplete).toBe(
        "https://x.com/i/lists/123: this service cannot list the posts of this X (Twitter) profile, feed or list; pass the links of its posts; " +
          "https://www.threads.com/@zuck: this service cannot list the posts of this Threads profile, feed or list; pass the links of its posts",
      );
    },
  );

  test(
    "with threads false, a post link is the post alone; a profile still its posts",
    { timeout: scaled(90_000) },
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
    timeout: scaled(90_000),
  }, async () => {
    const photo = "https://www.tiktok.com/@breadlab/photo/7436185392745209118";
    shortLinks.answer("/ZMslide/", 301, photo);
    shortLinks.asked.length = 0;
    const job = await endedJob(["https://vm.tiktok.com/ZMslide/"]);
    expect(job.items.map((item) => item.url)).toEqual([photo]);
    expect(shortLinks.asked).toEqual(["/ZMslide/"]);
  });
});

describe("a job's post links that no listing stands for", () => {
  test("are its items without an extraction slot: a key whose slots are all held still has them made", {
    timeout: scaled(60_000),
  }, async () => {
    const key = await makeKey(service.store.db, "FREE");
    const holder = { id: key.id, accountId: key.accountId, tier: "FREE" };
    // The key's own calls hold every slot it has, until the test lets them go.
    const held: (() => void)[] = [];
    for (;;) {
      try {
        held.push(service.app.extractions.acquire(holder));
      } catch {
        break;
      }
    }
    expect(held.length).toBeGreaterThan(0);
    // yt-dlp's post links, of a platform it reads alone and of one gallery-dl reads beside it: neither is listed.
    const urls = ["https://www.youtube.com/watch?v=jNQXAC9IVRw", "https://www.instagram.com/reel/C3xYz12AbCd/"];
    const path = await submit(key.plain, urls);
    try {
      await until("the job's links made items while its key's slots are held", async () => {
        const [row] = await service.store.db.query<{ expanded_at: Date | null }>(
          "SELECT expanded_at FROM jobs WHERE id = $1",
          [path.split("/").at(-1)],
        );
        return row?.expanded_at ?? undefined;
      });
      const job = await show(key.plain, path);
      expect(job.items.map((item) => item.url)).toEqual(urls);
    } finally {
      // Its items are not what this test is about: they would ask platforms this machine cannot reach.
      await service.app.get(path, key.plain, { method: "DELETE" });
      for (const release of held) release();
    }
  });
});
