// Every item of a post and subtitles, through the whole app: the records list the items, `index`
// downloads one of them (X directly, other pages through yt-dlp and ffmpeg), `subtitles` embeds a
// track, and page mode says the size it expects. Real yt-dlp, ffmpeg and ffprobe on local fakes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostRecord, TweetRecord } from "../../src/platforms/records.ts";
import { fullSizeImageUrl } from "../../src/platforms/x/tweet-parts.ts";
import { type FakeCdn, fakeSha256, startFakeCdn } from "../fakes/cdn.ts";
import {
  clipDurationSec,
  type MediaSite,
  shortClipDurationSec,
  startMediaSite,
  subtitleCues,
} from "../fakes/media-site.ts";
import { fakeTweetIds, type FakeXUpstream, mixedMediaFiles, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { initSegment, probeMedia } from "../helpers/media.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

interface ProbedStream {
  codec_name: string;
  codec_type: string;
  width?: number;
  tags?: { language?: string };
}

/** ffprobe's streams, with their language tags, and the subtitle text as SRT. */
function probeStreams(bytes: Uint8Array): { streams: ProbedStream[]; subtitleText: string } {
  const dir = mkdtempSync(join(tmpdir(), "items-probe-"));
  try {
    const file = join(dir, "media.mp4");
    writeFileSync(file, bytes);
    const out = execFileSync("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "stream=codec_name,codec_type,width:stream_tags=language",
      "-of",
      "json",
      file,
    ]);
    const { streams } = JSON.parse(out.toString()) as { streams: ProbedStream[] };
    const hasText = streams.some((stream) => stream.codec_type === "subtitle");
    const subtitleText = hasText
      ? execFileSync("ffmpeg", ["-v", "error", "-i", file, "-map", "0:s:0", "-f", "srt", "pipe:1"]).toString()
      : "";
    return { streams, subtitleText };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sha256 = async (response: Response) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", await response.arrayBuffer())).toString("hex");

describe("media items, index and subtitles", () => {
  let store: TestStore;
  let x: FakeXUpstream;
  let cdn: FakeCdn;
  let site: MediaSite;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, x, cdn, site] = await Promise.all([
      openTestStore("pglite"),
      startFakeXUpstream(),
      startFakeCdn(),
      startMediaSite(),
    ]);
    app = buildTestApp(store.db, {
      env: {
        X_SYNDICATION_URL: x.syndicationUrl,
        ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin},pbs.twimg.com=${cdn.origin}`,
        EXTRA_PAGE_HOSTS: site.host,
      },
    });
    key = (await makeKey(store.db, "GOLD")).plain;
  });
  afterAll(async () => {
    await Promise.all([store?.close(), x?.close(), cdn?.close(), site?.close()]);
  });

  const call = (operation: string, url: string, query = "", init?: RequestInit) =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key, init);

  describe("an X post with a photo, a video and a photo", () => {
    const link = `https://x.com/someone/status/${fakeTweetIds.mixedMedia}`;

    it("lists the three items in order in both records", async () => {
      const tweet = TweetRecord.parse(await (await call("tweet", link)).json());
      expect(tweet.media.map((item) => [item.type, item.url])).toEqual([
        ["photo", fullSizeImageUrl(mixedMediaFiles[0].url)],
        ["video", mixedMediaFiles[1].url],
        ["photo", fullSizeImageUrl(mixedMediaFiles[2].url)],
      ]);
      expect(tweet.imageUrls).toEqual([tweet.media[0]!.url, tweet.media[2]!.url]);
      expect(tweet.videoVariants).toEqual(tweet.media[1]!.videoVariants);

      const post = PostRecord.parse(await (await call("post", link)).json());
      expect(post.media.map((item) => item.type)).toEqual(["photo", "video", "photo"]);
      expect(post.media[1]).toMatchObject({ url: mixedMediaFiles[1].url, width: 1280, height: 720, durationSec: 205 });
      expect(post.media[1]!.videoVariants).toEqual([{
        qualityLabel: "720p",
        formatId: "http-2176",
        contentType: "video/mp4",
      }]);
      expect(post.subtitles).toEqual([]);
    });

    it("relays the item index names, and answers 400 past the last one", async () => {
      for (const [index, file] of mixedMediaFiles.entries()) {
        const response = await call("download", link, `&index=${index + 1}`);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe(file.type === "photo" ? "image/jpeg" : "video/mp4");
        expect(response.headers.get("content-length")).toBe(String(file.size));
        expect(response.headers.get("content-disposition")).toContain(
          `filename="x_${fakeTweetIds.mixedMedia}_${index + 1}.${file.type === "photo" ? "jpg" : "mp4"}"`,
        );
        expect(await sha256(response)).toBe(fakeSha256(0, file.size));
      }
      // Without index: the video, as before.
      const byDefault = await call("download", link);
      expect(byDefault.headers.get("content-length")).toBe("3000");
      await byDefault.arrayBuffer();

      const past = await call("download", link, "&index=4");
      expect(past.status).toBe(400);
      const problem = await past.json();
      expect(problem.code).toBe("invalid_parameter");
      expect(problem.detail).toContain("3 items");
      for (const bad of ["0", "-1", "1.5", "two"]) {
        expect((await call("download", link, `&index=${bad}`)).status, bad).toBe(400);
      }
      const photoAsMp3 = await call("download", link, "&index=3&audio=mp3");
      expect(photoAsMp3.status).toBe(400);
      expect((await photoAsMp3.json()).detail).toContain("photo");
      const subtitles = await call("download", link, "&index=2&subtitles=en");
      expect(subtitles.status).toBe(400);
      expect((await subtitles.json()).detail).toContain("no subtitles");
    });

    it("reads the media viewer's link as the post, and sends the item it names unless index names another", async () => {
      const viewer = (suffix: string) => `${link}/${suffix}?s=20&t=Xyz12aBcD3eFgHiJkLmNoP`;
      const post = PostRecord.parse(await (await call("post", viewer("photo/3"))).json());
      expect(post.id).toBe(fakeTweetIds.mixedMedia);
      expect(post.media.map((item) => item.type)).toEqual(["photo", "video", "photo"]);
      const third = await call("download", viewer("photo/3"));
      expect(third.headers.get("content-disposition")).toContain(`filename="x_${fakeTweetIds.mixedMedia}_3.jpg"`);
      expect(third.headers.get("content-length")).toBe(String(mixedMediaFiles[2].size));
      await third.arrayBuffer();
      const first = await call("download", viewer("photo/3"), "&index=1");
      expect(first.headers.get("content-disposition")).toContain(`filename="x_${fakeTweetIds.mixedMedia}_1.jpg"`);
      await first.arrayBuffer();
      // A post's other views name no item: the video, as for the post's own link.
      const analytics = await call("download", viewer("analytics"));
      expect(analytics.headers.get("content-length")).toBe("3000");
      await analytics.arrayBuffer();
    });
  });

  describe("a page with two <video> elements", () => {
    it("gives two items, and index=2 downloads the second video", async () => {
      const post = PostRecord.parse(await (await call("post", site.pages.twoVideos)).json());
      expect(post.media.map((item) => item.type)).toEqual(["video", "video"]);
      expect(post.media.every((item) => item.url === null && item.videoVariants.length > 0)).toBe(true);

      const first = await call("download", site.pages.twoVideos);
      const second = await call("download", site.pages.twoVideos, "&index=2");
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers.get("content-disposition")).toContain('filename="other_two-videos-2.mp4"');
      const [one, two] = [new Uint8Array(await first.arrayBuffer()), new Uint8Array(await second.arrayBuffer())];
      expect((await probeMedia(one)).duration).toBeCloseTo(clipDurationSec, 0);
      expect((await probeMedia(two)).duration).toBeCloseTo(shortClipDurationSec, 0);
      expect(two.byteLength).toBeLessThan(one.byteLength);
    });

    it("answers 400 past the last item, saying how many there are", async () => {
      const past = await call("download", site.pages.twoVideos, "&index=3");
      expect(past.status).toBe(400);
      expect((await past.json()).detail).toContain("2 items");
      const single = await call("download", site.pages.progressive, "&index=2");
      expect(single.status).toBe(400);
      expect((await single.json()).detail).toContain("1 item;");
    });
  });

  describe("a page whose <video> has a <track kind=subtitles srclang=en>", () => {
    it("lists en, and subtitles=en embeds it as a mov_text stream tagged eng", async () => {
      const post = PostRecord.parse(await (await call("post", site.pages.subtitled)).json());
      expect(post.subtitles).toEqual([{ lang: "en", name: null, auto: false }]);

      const response = await call("download", site.pages.subtitled, "&subtitles=en");
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const { streams, subtitleText } = probeStreams(bytes);
      expect(streams.map((stream) => stream.codec_name).sort()).toEqual(["aac", "h264", "mov_text"]);
      expect(streams.find((stream) => stream.codec_type === "subtitle")?.tags?.language).toBe("eng");
      for (const cue of subtitleCues) expect(subtitleText).toContain(cue);
      expect((await probeMedia(bytes)).duration).toBeCloseTo(clipDurationSec, 0);
    });

    it("answers 400 for a language the post lacks, naming the ones it has, and for subtitles with audio=mp3", async () => {
      const missing = await call("download", site.pages.subtitled, "&subtitles=fr");
      expect(missing.status).toBe(400);
      const problem = await missing.json();
      expect(problem.code).toBe("invalid_parameter");
      expect(problem.detail).toContain("it has: en");
      const mp3 = await call("download", site.pages.subtitled, "&subtitles=en&audio=mp3");
      expect(mp3.status).toBe(400);
      expect((await mp3.json()).detail).toContain("audio=mp3");
    });
  });

  describe("Estimated-Content-Length", () => {
    it("is sent in page mode when yt-dlp knows the sizes, and not otherwise", async () => {
      const known = await call("download", site.pages.jsonLd);
      expect(known.status).toBe(200);
      expect(known.headers.get("estimated-content-length")).toBe(String(site.mp4Bytes));
      expect(known.headers.get("content-length")).toBeNull();
      const bytes = new Uint8Array(await known.arrayBuffer());
      // Remuxing copies the streams: the estimate is near the real size.
      expect(Math.abs(bytes.byteLength - site.mp4Bytes) / site.mp4Bytes).toBeLessThan(0.1);
      expect((await probeMedia(initSegment(bytes))).duration).toBeCloseTo(clipDurationSec, 2);

      // MP3 at 320 kbps CBR: the length times 40 000 bytes a second.
      const mp3 = await call("download", site.pages.jsonLd, "&audio=mp3");
      expect(mp3.headers.get("estimated-content-length")).toBe(String(clipDurationSec * 40_000));
      await mp3.arrayBuffer();

      const unknown = await call("download", site.pages.progressive);
      expect(unknown.headers.get("estimated-content-length")).toBeNull();
      await unknown.arrayBuffer();
    });
  });
});
