// Bluesky end to end through the app, against a local AppView, CDN and video host that answer
// with the recorded posts (test/fakes/bluesky.ts): records of a post with images, a video post,
// a quote of it and a deleted post; a photo relayed as the CDN serves it, the video in page mode.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostRecord } from "../../../src/platforms/records.ts";
import {
  type FakeBluesky,
  imageBytes,
  imagesThread,
  linkOf,
  quoteOfVideo,
  startFakeBluesky,
  streams,
  videoPost,
} from "../../fakes/bluesky.ts";
import { buildTestApp, makeKey, type TestApp } from "../../helpers/app.ts";
import { probeMedia } from "../../helpers/media.ts";
import { openTestStore, type TestStore } from "../../helpers/stores.ts";
import { scaled } from "../../helpers/slowness.ts";

/** The width of the MP4's video stream, by ffprobe. */
function videoWidth(bytes: Uint8Array): number {
  const dir = mkdtempSync(join(tmpdir(), "bluesky-probe-"));
  try {
    writeFileSync(join(dir, "media.mp4"), bytes);
    const out = execFileSync("ffprobe", [
      "-v",
      "error",
      "-select_streams",
      "v:0",
      "-show_entries",
      "stream=width",
      "-of",
      "csv=p=0",
      join(dir, "media.mp4"),
    ]);
    return Number(out.toString().trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("Bluesky posts through the app", () => {
  let store: TestStore;
  let fake: FakeBluesky;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, fake] = await Promise.all([openTestStore("pglite"), startFakeBluesky()]);
    app = buildTestApp(store.db, { env: { BLUESKY_APPVIEW_URL: fake.origin, ORIGIN_OVERRIDES: fake.originOverrides } });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), fake?.close()]);
  });

  const call = (operation: string, url: string, query = "") =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key);
  const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

  test("a post with an image: its record, and the image relayed as Bluesky's CDN serves it", async () => {
    const link = linkOf(imagesThread.thread.post);
    const response = await call("post", link);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record).toMatchObject({
      platform: "BLUESKY",
      id: "3k7qmjev5lr2s",
      authorName: "Soubhik Barari",
      needsServerProcessing: false,
    });
    expect(record.media.map((item) => item.type)).toEqual(["photo"]);

    const image = await call("download", link);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/jpeg");
    expect(image.headers.get("content-disposition")).toContain('filename="bluesky_3k7qmjev5lr2s.jpg"');
    expect(Buffer.from(await bytesOf(image)).equals(imageBytes)).toBe(true);
  });

  test("a post pasted on a mirror (fxbsky.app) is read on bsky.app: the same record, the mirror never asked", async () => {
    const link = linkOf(imagesThread.thread.post);
    const mirrored = link.replace("https://bsky.app/", "https://fxbsky.app/");
    const response = await call("post", mirrored);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record).toMatchObject({ platform: "BLUESKY", id: "3k7qmjev5lr2s", url: link });
  });

  test("a video post: page mode streams the best stream of its HLS playlist as MP4", async () => {
    const link = linkOf(videoPost);
    const record = PostRecord.parse(await (await call("post", link)).json());
    expect(record).toMatchObject({
      needsServerProcessing: true,
      media: [{ type: "video", url: null, altText: "a carousel of package logos, all hexagonal" }],
    });

    const response = await call("download", link);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    const bytes = await bytesOf(response);
    expect((await probeMedia(bytes)).streams.sort()).toEqual(["aac", "h264"]);
    expect(videoWidth(bytes)).toBe(streams[1]!.width);
  });

  test("a quote of the video post gives the quoted video, as MP4 and as its AAC sound", async () => {
    const link = linkOf(quoteOfVideo);
    const record = PostRecord.parse(await (await call("post", link)).json());
    expect(record.media.map((item) => item.type)).toEqual(["video"]);
    const video = await call("download", link);
    expect(video.status).toBe(200);
    expect((await probeMedia(await bytesOf(video))).streams.sort()).toEqual(["aac", "h264"]);
    const sound = await call("download", link, "&audio=m4a");
    expect(sound.status).toBe(200);
    expect(sound.headers.get("content-type")).toBe("audio/mp4");
    expect((await probeMedia(await bytesOf(sound))).streams).toEqual(["aac"]);
  });

  test("a deleted post is 404 not_found for both operations", async () => {
    const link = "https://bsky.app/profile/chriskenny.bsky.social/post/3lgone0000002";
    for (const operation of ["post", "download"]) {
      const response = await call(operation, link);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("not_found");
    }
  });
});
