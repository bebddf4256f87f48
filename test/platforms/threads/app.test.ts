// Threads end to end through the app, against a local site and CDN built from the recorded page
// data (test/fakes/threads.ts): a photo post's record and photo, a video post's record and file,
// a carousel's items in order and each one's file, and a post the site does not have.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PostRecord } from "../../../src/platforms/records.ts";
import {
  carouselPost,
  type FakeThreads,
  files,
  missingCode,
  photoPost,
  startFakeThreads,
  threadsAccess,
  videoPost,
} from "../../fakes/threads.ts";
import { buildTestApp, makeKey, type TestApp } from "../../helpers/app.ts";
import { openTestStore, type TestStore } from "../../helpers/stores.ts";
import { scaled } from "../../helpers/slowness.ts";

describe("Threads posts through the app", () => {
  let store: TestStore;
  let fake: FakeThreads;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, fake] = await Promise.all([openTestStore("pglite"), startFakeThreads()]);
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  // An app of its own per test: each keeps the posts it read for PAGE_CACHE_TTL_S.
  beforeEach(() => {
    app = buildTestApp(store.db, {
      env: { ORIGIN_OVERRIDES: fake.originOverrides, THREADS_QUERY_ID: threadsAccess.queryId },
    });
  });
  afterAll(async () => {
    await Promise.all([store?.close(), fake?.close()]);
  });

  const call = (operation: string, url: string, query = "") =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key);
  const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
  const fileAt = (url: string) => files.get(new URL(url).pathname)!;

  test("a photo post: its words, author and photo, relayed as the CDN serves it", async () => {
    const link = `https://www.threads.net/@${photoPost.user}/post/${photoPost.code}`;
    const response = await call("post", link);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record).toMatchObject({
      platform: "THREADS",
      id: photoPost.code,
      url: `https://www.threads.com/@${photoPost.user}/post/${photoPost.code}`,
      text: photoPost.text,
      authorName: photoPost.author,
      media: [{ type: "photo", url: photoPost.imageUrl, width: photoPost.width, height: photoPost.height }],
    });
    expect(fake.pages).toContain(`/@${photoPost.user}/post/${photoPost.code}`);

    const photo = await call("download", link);
    expect(photo.status).toBe(200);
    expect(photo.headers.get("content-type")).toBe("image/jpeg");
    expect(photo.headers.get("content-disposition")).toContain(`filename="threads_${photoPost.code}.jpg"`);
    expect((await bytesOf(photo)).equals(fileAt(photoPost.imageUrl))).toBe(true);
  });

  test("a video post: its record, and the video relayed as the CDN serves it", async () => {
    const link = `https://www.threads.com/@${videoPost.user}/post/${videoPost.code}/media`;
    const record = PostRecord.parse(await (await call("post", link)).json());
    expect(record).toMatchObject({
      id: videoPost.code,
      text: videoPost.text,
      durationSec: videoPost.durationSec,
      videoVariants: [{ qualityLabel: "1280p", formatId: "1280p", contentType: "video/mp4" }],
      media: [{ type: "video", width: videoPost.width, height: videoPost.height }],
    });
    const video = await call("download", link);
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    expect((await bytesOf(video)).equals(fileAt(record.media[0]!.url!))).toBe(true);
    const other = await call("download", link, "&format=720p");
    expect([other.status, (await other.json()).code]).toEqual([400, "format_not_available"]);
  });

  test("a carousel its page does not carry: the query answers it, items in order, each one's file by index", async () => {
    const link = `https://www.threads.com/t/${carouselPost.code}`;
    const queriesBefore = fake.queries.length;
    const record = PostRecord.parse(await (await call("post", link)).json());
    expect(fake.queries.slice(queriesBefore)).toEqual([true]);
    expect(record.media.map((item) => [item.type, new URL(item.url!).pathname])).toEqual([
      ["photo", "/v/slide-1.jpg"],
      ["video", "/v/slide-2.mp4"],
      ["photo", "/v/slide-3.jpg"],
    ]);
    expect(record.media[1]).toMatchObject({ durationSec: 3, height: 1920 });
    for (const [index, item] of record.media.entries()) {
      const file = await call("download", link, `&index=${index + 1}`);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-disposition")).toContain(`threads_${carouselPost.code}_${index + 1}.`);
      expect((await bytesOf(file)).equals(fileAt(item.url!))).toBe(true);
    }
    const past = await call("download", link, "&index=4");
    expect(past.status).toBe(400);
  });

  test("a query id Threads no longer answers is 502 naming THREADS_QUERY_ID", async () => {
    const stale = buildTestApp(store.db, { env: { ORIGIN_OVERRIDES: fake.originOverrides, THREADS_QUERY_ID: "1" } });
    const response = await stale.get(
      `/api/v1/post?url=${encodeURIComponent(`https://www.threads.com/t/${carouselPost.code}`)}`,
      key,
    );
    const problem = await response.json();
    expect([response.status, problem.code]).toEqual([502, "upstream_failed"]);
    expect(problem.detail).toContain("THREADS_QUERY_ID");
    expect(fake.queries.at(-1)).toBe(false);
  });

  test("a post the site does not have is 404 not_found, for both operations", async () => {
    for (const operation of ["post", "download"]) {
      const response = await call(operation, `https://www.threads.com/@nobody/post/${missingCode}`);
      expect([response.status, (await response.json()).code]).toEqual([404, "not_found"]);
    }
  });
});
