// Photo posts through the real gallery-dl: its own Instagram, Reddit and TikTok extractors read
// the local platforms of test/fakes/photo-platforms.ts (reached through the egress gate, trusted
// through GALLERY_DL_CA_FILE), and the service relays the pictures from their CDN.
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../../../fakes/photo-platforms.ts";
import { cobaltDoorOver } from "../../../helpers/cobalt-door.ts";
import { buildTestApp, makeKey, type TestApp } from "../../../helpers/app.ts";
import { probeMedia } from "../../../helpers/media.ts";
import { holdsWithin } from "../../../helpers/until.ts";
import { openTestStore, type TestStore } from "../../../helpers/stores.ts";

let store: TestStore;
let platforms: PhotoPlatforms;
let app: TestApp;
let key: string;
beforeAll(async () => {
  [store, platforms] = await Promise.all([openTestStore("pglite"), startPhotoPlatforms()]);
  app = buildTestApp(store.db, {
    env: { ORIGIN_OVERRIDES: platforms.originOverrides, GALLERY_DL_CA_FILE: platforms.caFile },
  });
  key = (await makeKey(store.db, "PRO")).plain;
});
afterAll(async () => {
  await Promise.all([store?.close(), platforms?.close()]);
});

const post = (link: string) => app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);
const download = (link: string, query = "", init?: RequestInit) =>
  app.get(`/api/v1/download?url=${encodeURIComponent(link)}${query}`, key, init);

describe("Instagram", () => {
  test("a carousel of 3 photos is 3 photo items at full size, in order, with the post's text, author and id", async () => {
    const response = await post(photoPosts.instagramThreePhotos);
    expect(response.status).toBe(200);
    const record = await response.json();
    const files = platforms.files.instagramThreePhotos;
    expect(record).toMatchObject({
      platform: "INSTAGRAM",
      id: "C9kQ2mXoR3a",
      url: "https://www.instagram.com/p/C9kQ2mXoR3a/",
      text: "Three from the coast walk #sea #autumn",
      authorName: "Coast Walker",
      needsServerProcessing: false,
      videoVariants: [],
      imageUrls: files.map((file) => file.url),
    });
    expect(record.media).toEqual(
      files.map((file, at) => ({
        type: "photo",
        url: file.url,
        posterUrl: null,
        width: file.width,
        height: file.height,
        durationSec: null,
        videoVariants: [],
        altText: null,
        // The item's own signed download (docs/api.md, Signed links).
        downloadUrl: expect.stringMatching(new RegExp(`/api/v1/download\\?.*index=${at + 1}&`)),
      })),
    );
  });

  test("index=2 sends the second picture's bytes as a JPEG named after the post, from the CDN, resumable", async () => {
    const second = platforms.files.instagramThreePhotos[1]!;
    const expected = await platforms.bytes(second.url);
    const response = await download(photoPosts.instagramThreePhotos, "&index=2");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect(response.headers.get("content-disposition")).toContain('filename="instagram_C9kQ2mXoR3a_2.jpg"');
    expect(response.headers.get("content-length")).toBe(String(expected.length));
    expect(Buffer.compare(Buffer.from(await response.arrayBuffer()), Buffer.from(expected))).toBe(0);

    const part = await download(photoPosts.instagramThreePhotos, "&index=2", { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-19/${expected.length}`);
    expect(Buffer.compare(Buffer.from(await part.arrayBuffer()), Buffer.from(expected.subarray(10, 20)))).toBe(0);
  });

  test("without index the first picture comes; an index past the last is 400 saying how many there are", async () => {
    const first = await platforms.bytes(platforms.files.instagramThreePhotos[0]!.url);
    const response = await download(photoPosts.instagramThreePhotos);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toContain('filename="instagram_C9kQ2mXoR3a.jpg"');
    expect(Buffer.compare(Buffer.from(await response.arrayBuffer()), Buffer.from(first))).toBe(0);

    const past = await download(photoPosts.instagramThreePhotos, "&index=4");
    expect(past.status).toBe(400);
    expect((await past.json()).detail).toContain("3 items");
    const mp3 = await download(photoPosts.instagramThreePhotos, "&index=1&audio=mp3");
    expect(mp3.status).toBe(400);
  });

  test("a carousel of a photo, a video and a photo keeps that order; the video's file comes with index=2", async () => {
    const response = await post(photoPosts.instagramPhotoVideoPhoto);
    expect(response.status).toBe(200);
    const record = await response.json();
    const files = platforms.files.instagramPhotoVideoPhoto;
    expect(record.media.map((item: { type: string }) => item.type)).toEqual(["photo", "video", "photo"]);
    expect(record.media.map((item: { url: string }) => item.url)).toEqual(files.map((file) => file.url));
    expect(record.media[1]).toMatchObject({
      width: 320,
      height: 400,
      posterUrl: expect.stringContaining("AQN2waves_clip_4466_still_n.jpg"),
    });
    expect(record.imageUrls).toEqual([files[0]!.url, files[2]!.url]);

    const video = await download(photoPosts.instagramPhotoVideoPhoto, "&index=2");
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
    expect(video.headers.get("content-disposition")).toContain('filename="instagram_C9kQ7vMxP1b_2.mp4"');
    expect(Buffer.compare(Buffer.from(await video.arrayBuffer()), Buffer.from(await platforms.bytes(files[1]!.url))))
      .toBe(0);

    const mp3 = await download(photoPosts.instagramPhotoVideoPhoto, "&index=2&audio=mp3");
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get("content-type")).toBe("audio/mpeg");
    expect((await probeMedia(new Uint8Array(await mp3.arrayBuffer()))).streams).toEqual(["mp3"]);
  });

  test("a login wall is 502 upstream_blocked saying who can act, with gallery-dl's remedy in the log, counted for Instagram", async () => {
    const response = await post(photoPosts.instagramLoginWall);
    expect(response.status).toBe(502);
    const problem = await response.json();
    expect(problem.code).toBe("upstream_blocked");
    expect(problem.detail).toMatch(/platform refused this server with a sign-in.*operator/);
    expect(app.logLines.join("\n")).toMatch(
      /platform refused gallery-dl \(.*login page.*\); remedy: .*gallery-dl.*COOKIES_FILE.*OUTBOUND_PROXY.*--update-tools/,
    );
    expect(await (await app.get("/metrics")).text()).toMatch(
      /media_api_upstream_blocked_total\{platform="INSTAGRAM"\} [1-9]/,
    );
  });

  test("a removed post is 404 not_found", async () => {
    const response = await post(photoPosts.instagramRemoved);
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe("not_found");
  });
});

describe("a platform that never answers", () => {
  test("fails within the extraction's time cap, and leaves no gallery-dl running 3 s later", async () => {
    const quick = buildTestApp(store.db, {
      env: {
        ORIGIN_OVERRIDES: platforms.originOverrides,
        GALLERY_DL_CA_FILE: platforms.caFile,
        EXTRACT_TIMEOUT_S: "2",
      },
    });
    const started = Date.now();
    const response = await quick.get(`/api/v1/post?url=${encodeURIComponent(photoPosts.instagramStalled)}`, key);
    expect([502, 504]).toContain(response.status);
    expect(Date.now() - started).toBeLessThan(6000);
    // The answer does not wait for the tool's end: it is sent SIGTERM, and SIGKILL a second later.
    const running = () => spawnSync("pgrep", ["-f", "C9kS2slowQq"], { encoding: "utf8" }).stdout.trim();
    await holdsWithin(() => running() === "", 3000, 100);
    expect(running()).toBe("");
  });
});

describe("Reddit", () => {
  test("a gallery lists its pictures in order at full size, with the title and author; each downloads by index", async () => {
    const response = await post(photoPosts.redditGallery);
    expect(response.status).toBe(200);
    const record = await response.json();
    const files = platforms.files.redditGallery;
    expect(record).toMatchObject({
      platform: "REDDIT",
      id: "1gq3xk7",
      text: "Three mornings at the lake [OC]",
      authorName: "lakeside_ana",
    });
    expect(record.url).toBe("https://www.reddit.com/r/MostBeautiful/comments/1gq3xk7/three_mornings_at_the_lake_oc/");
    expect(record.imageUrls).toEqual(files.map((file) => file.url));
    expect(record.media.map((item: { width: number; height: number }) => [item.width, item.height])).toEqual(
      files.map((file) => [file.width, file.height]),
    );

    const third = await download(photoPosts.redditGallery, "&index=3");
    expect(third.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await third.arrayBuffer()), Buffer.from(await platforms.bytes(files[2]!.url))))
      .toBe(0);
  });
});

describe("TikTok", () => {
  const pictures = () => platforms.files.tiktokSlideshow.filter((file) => file.kind === "photo");
  const music = () => platforms.files.tiktokSlideshow.find((file) => file.kind === "sound")!;

  test("a slideshow (/photo/) lists its pictures, then its music as a sound item, with the caption and author", async () => {
    const response = await post(photoPosts.tiktokSlideshow);
    expect(response.status).toBe(200);
    const record = await response.json();
    const files = pictures();
    expect(record).toMatchObject({
      platform: "TIKTOK",
      id: "7436185392745209118",
      text: "Four steps to the perfect loaf #baking",
      authorName: "Bread Lab",
      // A photo post: no video's length, its first picture its poster.
      durationSec: null,
      posterUrl: files[0]!.url,
      needsServerProcessing: false,
    });
    expect(record.media).toHaveLength(5);
    expect(record.imageUrls).toEqual(files.map((file) => file.url));
    expect(record.media.slice(0, 4).map((item: { width: number; height: number }) => [item.width, item.height]))
      .toEqual(files.map((file) => [file.width, file.height]));
    // As records list sound alone: a video whose variants are all `audio` (yt-dlp's record of the same music too).
    expect(record.media[4]).toEqual({
      type: "video",
      url: music().url,
      posterUrl: null,
      width: null,
      height: null,
      durationSec: 24,
      videoVariants: [{
        qualityLabel: "audio",
        formatId: "audio",
        contentType: "audio/mpeg",
        downloadUrl: expect.stringMatching(/\/api\/v1\/download\?.*index=5&format=audio&/),
      }],
      altText: null,
      downloadUrl: expect.stringMatching(/\/api\/v1\/download\?.*index=5&/),
    });

    const first = await download(photoPosts.tiktokSlideshow, "&index=1");
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.compare(Buffer.from(await first.arrayBuffer()), Buffer.from(await platforms.bytes(files[0]!.url))))
      .toBe(0);
  });

  test("the music (index=5) is the CDN's MP3 as it is, by its signed links too; audio=mp3 is our MP3 of it, mute is 400", async () => {
    const expected = await platforms.bytes(music().url);
    const sound = await download(photoPosts.tiktokSlideshow, "&index=5");
    expect(sound.status).toBe(200);
    expect(sound.headers.get("content-type")).toBe("audio/mpeg");
    expect(sound.headers.get("content-disposition")).toContain('filename="tiktok_7436185392745209118_5.mp3"');
    expect(sound.headers.get("content-length")).toBe(String(expected.length));
    expect(Buffer.compare(Buffer.from(await sound.arrayBuffer()), Buffer.from(expected))).toBe(0);

    const record = await (await post(photoPosts.tiktokSlideshow)).json();
    for (const signed of [record.media[4].downloadUrl, record.media[4].videoVariants[0].downloadUrl]) {
      const link = new URL(signed);
      const response = await app.get(link.pathname + link.search);
      expect(response.status).toBe(200);
      expect(Buffer.compare(Buffer.from(await response.arrayBuffer()), Buffer.from(expected))).toBe(0);
    }

    const mp3 = await download(photoPosts.tiktokSlideshow, "&index=5&audio=mp3");
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get("content-type")).toBe("audio/mpeg");
    const probed = await probeMedia(new Uint8Array(await mp3.arrayBuffer()));
    expect(probed.streams).toEqual(["mp3"]);

    const muted = await download(photoPosts.tiktokSlideshow, "&index=5&mute=true");
    expect(muted.status).toBe(400);
    expect((await muted.json()).detail).toContain("sound alone");
  });

  test("cobalt's picker gives the pictures as its entries and the music as audio with audioFilename", async () => {
    const door = cobaltDoorOver(app, store.db);
    const { status, answer } = await door.ask(key, photoPosts.tiktokSlideshow);
    expect(status).toBe(200);
    expect(answer.status).toBe("picker");
    expect(answer.picker.map((entry: { type: string; thumb: string }) => [entry.type, entry.thumb])).toEqual(
      pictures().map((file) => ["photo", file.url]),
    );
    expect(answer.audioFilename).toBe("tiktok_7436185392745209118_audio.mp3");
    const tunnel = new URL(answer.audio);
    expect([tunnel.pathname, tunnel.searchParams.get("index"), tunnel.searchParams.get("audio")]).toEqual([
      "/tunnel",
      "5",
      "mp3",
    ]);

    const sound = await door.open(answer.audio);
    expect(sound.status).toBe(200);
    expect(sound.headers.get("content-disposition")).toContain(answer.audioFilename);
    const probed = await probeMedia(new Uint8Array(await sound.arrayBuffer()));
    expect(probed.streams).toEqual(["mp3"]);
  });
});

/** Private cookie copies in `parent` that hold `value`. */
async function copiesHolding(parent: string, value: string): Promise<string[]> {
  const folders = (await readdir(parent)).filter((name) => name.startsWith("media-api-cookies-"));
  const holding = await Promise.all(folders.map(async (folder) => {
    const text = await readFile(path.join(parent, folder, "cookies.txt"), "utf8").catch(() => "");
    return text.includes(value) ? [folder] : [];
  }));
  return holding.flat();
}

describe("the operator's cookie file", () => {
  test("gallery-dl gets a private copy for the platform, the picture's fetch the CDN's cookie; the copy is gone after", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "photo-cookies-"));
    try {
      const file = path.join(dir, "cookies.txt");
      await writeFile(
        file,
        [
          "# Netscape HTTP Cookie File",
          "#HttpOnly_.instagram.com\tTRUE\t/\tTRUE\t1900000000\tsessionid\t5821340975%3Asess10n",
          ".fbcdn.net\tTRUE\t/\tFALSE\t1900000000\tcdn_pass\tk3y",
          ".tiktok.com\tTRUE\t/\tTRUE\t1900000000\tsid_tt\tnot-for-instagram",
          "",
        ].join("\n"),
      );
      // The copies in this test's own folder: other runs on the machine make theirs in TMPDIR too.
      const copies = await mkdtemp(path.join(dir, "copies-"));
      const withCookies = buildTestApp(store.db, {
        env: { ORIGIN_OVERRIDES: platforms.originOverrides, GALLERY_DL_CA_FILE: platforms.caFile, COOKIES_FILE: file },
        privateCopies: copies,
      });
      const since = platforms.requestLog.length;
      const response = await withCookies.get(
        `/api/v1/download?url=${encodeURIComponent(photoPosts.instagramThreePhotos)}&index=3`,
        key,
      );
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      const requests = platforms.requestLog.slice(since);
      const api = requests.find((r) => r.host === "www.instagram.com");
      expect(api?.cookie).toContain("sessionid=5821340975%3Asess10n");
      expect(api?.cookie).not.toContain("sid_tt");
      const picture = requests.find((r) => r.path === new URL(platforms.files.instagramThreePhotos[2]!.url).pathname);
      expect(picture?.cookie).toBe("cdn_pass=k3y");
      expect(await copiesHolding(copies, "sess10n")).toEqual([]);
      expect(withCookies.logLines.join("\n")).not.toContain("sess10n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
