// Xiaohongshu end to end through the app, against a local site, short link and CDN built as the
// site answers (test/fakes/xiaohongshu.ts): a photo note's record and each photo relayed as the CDN
// serves it, a short link followed to its note, a video note's variants relayed as they are (and as
// MP3), and the notes the site does not show.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PostRecord } from "../../../src/platforms/records.ts";
import {
  blockedNote,
  failingStream,
  type FakeXiaohongshu,
  photoBytes,
  photoNote,
  shortCode,
  startFakeXiaohongshu,
  videoNote,
} from "../../fakes/xiaohongshu.ts";
import { buildTestApp, makeKey, type TestApp } from "../../helpers/app.ts";
import { probeMedia } from "../../helpers/media.ts";
import { openTestStore, type TestStore } from "../../helpers/stores.ts";
import { scaled } from "../../helpers/slowness.ts";

describe("Xiaohongshu notes through the app", () => {
  let store: TestStore;
  let fake: FakeXiaohongshu;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, fake] = await Promise.all([openTestStore("pglite"), startFakeXiaohongshu()]);
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  // An app of its own per test: each keeps the notes it read (by id) for PAGE_CACHE_TTL_S.
  beforeEach(() => {
    app = buildTestApp(store.db, { env: { ORIGIN_OVERRIDES: fake.originOverrides } });
  });
  afterAll(async () => {
    await Promise.all([store?.close(), fake?.close()]);
  });

  const call = (operation: string, url: string, query = "") =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key);
  const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
  const photoLink =
    `https://www.xiaohongshu.com/explore/${photoNote.id}?xsec_token=${photoNote.token}&xsec_source=pc_feed`;
  const videoLink = `https://www.xiaohongshu.com/discovery/item/${videoNote.id}?xsec_token=${
    encodeURIComponent(videoNote.token)
  }`;

  test("a photo note: its words, author and every photo, each relayed as the CDN serves it", async () => {
    const response = await call("post", photoLink);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record).toMatchObject({
      platform: "XIAOHONGSHU",
      id: photoNote.id,
      url: `https://www.xiaohongshu.com/explore/${photoNote.id}`,
      text: `${photoNote.title}\n\n${photoNote.desc}`,
      authorName: photoNote.author,
      needsServerProcessing: false,
      videoVariants: [],
    });
    expect(record.media.map((item) => [item.type, item.width, item.height])).toEqual([["photo", 1080, 1440], [
      "photo",
      1080,
      1440,
    ], ["photo", 1080, 1440]]);
    expect(record.imageUrls).toEqual(
      [1, 2, 3].map((i) => `https://sns-webpic-qc.xhscdn.com/1040g00830/photo-${i}!nd_dft_wlteh_jpg_3`),
    );

    const second = await call("download", photoLink, "&index=2");
    expect(second.status).toBe(200);
    expect(second.headers.get("content-type")).toBe("image/jpeg");
    expect(second.headers.get("content-disposition")).toContain(`filename="xiaohongshu_${photoNote.id}_2.jpg"`);
    expect((await bytesOf(second)).equals(photoBytes(2))).toBe(true);
    expect((await bytesOf(await call("download", photoLink))).equals(photoBytes(1))).toBe(true);
    expect((await call("download", photoLink, "&index=4")).status).toBe(400);
    expect((await call("download", photoLink, "&audio=mp3")).status).toBe(400);
  });

  test("a short link is followed to its note, which is asked for with the link's token and nothing else of its query", async () => {
    const response = await call("post", `https://xhslink.com/a/${shortCode}`);
    expect(response.status).toBe(200);
    expect(PostRecord.parse(await response.json()).id).toBe(photoNote.id);
    expect(fake.pages.at(-1)).toBe(`/explore/${photoNote.id}?xsec_token=${photoNote.token}&xsec_source=app_share`);
    // The note is kept by its id for a while: the same note by its full link reads no page.
    const asked = fake.pages.length;
    expect((await call("post", photoLink)).status).toBe(200);
    expect(fake.pages.length).toBe(asked);
  });

  test.each([`http://xhslink.cn/m/${shortCode}`, `https://xhslink.com/m/${shortCode}`])(
    "a short link of a newer shape (%s) is followed to its note too",
    async (link) => {
      const response = await call("post", link);
      expect(response.status).toBe(200);
      expect(PostRecord.parse(await response.json()).id).toBe(photoNote.id);
    },
  );

  test("a video note: its variants best first, the best relayed by default, another by its format id, and its sound as MP3", async () => {
    const response = await call("post", videoLink);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record.videoVariants.map((variant) => variant.formatId)).toEqual(["h264-1080p", "h264-720p", "h265-1080p"]);
    expect(record).toMatchObject({
      durationSec: 4,
      authorName: videoNote.author,
      imageUrls: [],
      posterUrl: "https://sns-webpic-qc.xhscdn.com/1040g00830/photo-9!nd_dft_wlteh_jpg_3",
    });
    expect(record.media).toHaveLength(1);
    expect(record.media[0]).toMatchObject({
      type: "video",
      url: "https://sns-video-bd.xhscdn.com/stream/h264-v1080.mp4",
      height: 1080,
    });

    const best = await call("download", videoLink);
    expect(best.status).toBe(200);
    expect(best.headers.get("content-type")).toBe("video/mp4");
    expect((await bytesOf(best)).equals(fake.video("v1080.mp4"))).toBe(true);
    // The 720p file's CDN node fails: its backup, which the page names beside it, serves it.
    const asked = fake.videoFiles.length;
    const fromBackup = await call("download", videoLink, "&format=h264-720p");
    expect(fromBackup.status).toBe(200);
    expect((await bytesOf(fromBackup)).equals(fake.video("v720.mp4"))).toBe(true);
    expect(fake.videoFiles.slice(asked)).toEqual([failingStream, "/backup/h264-v720.mp4"]);
    const unknown = await call("download", videoLink, "&format=av1-480p");
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).detail).toContain("h264-1080p, h264-720p, h265-1080p");

    const sound = await call("download", videoLink, "&audio=mp3");
    expect(sound.status).toBe(200);
    expect(sound.headers.get("content-type")).toBe("audio/mpeg");
    expect((await probeMedia(new Uint8Array(await sound.arrayBuffer()))).streams).toEqual(["mp3"]);
  });

  test("a note the site does not show: a stale or missing token is 404 post_unavailable naming the remedy; no such note 404; a sign-in wall 502", async () => {
    for (
      const link of [
        `https://www.xiaohongshu.com/explore/${photoNote.id}?xsec_token=stale`,
        `https://www.xiaohongshu.com/explore/${photoNote.id}`,
      ]
    ) {
      const response = await call("post", link);
      expect(response.status).toBe(404);
      const problem = await response.json();
      expect(problem.code).toBe("post_unavailable");
      expect(problem.detail).toMatch(/xsec_token.*Copy the link again from the app's Share/);
    }
    const gone = await call("post", "https://www.xiaohongshu.com/explore/64f1c2a3000000001e03ffff?xsec_token=t");
    expect(gone.status).toBe(404);
    expect((await gone.json()).code).toBe("not_found");
    const walled = await call("post", `https://www.xiaohongshu.com/explore/${blockedNote}?xsec_token=t`);
    expect(walled.status).toBe(502);
    expect((await walled.json()).code).toBe("upstream_blocked");
    // Counted, as a tool's refusal is, for the operator's alert and the platform check.
    expect(await (await app.get("/metrics")).text()).toContain(
      'media_api_upstream_blocked_total{platform="XIAOHONGSHU"} 1',
    );
    const profile = await call("post", "https://www.xiaohongshu.com/user/profile/5c31698d0000000007018a31");
    expect(profile.status).toBe(400);
    expect((await profile.json()).code).toBe("invalid_url");
  });
});
