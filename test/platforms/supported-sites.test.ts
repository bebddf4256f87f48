// SUPPORTED_SITES=all: a link outside the table that an extractor of the installed yt-dlp claims is
// read by it, as the platform named after that extractor; a plain web page stays 400. End to end
// against a local stand-in of nobelprize.org's media player (yt-dlp's NobelPrize extractor reads
// its JSON-LD), which ORIGIN_OVERRIDES points the site's host at, through the egress gate.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { platformOf } from "../../src/operations/ask.ts";
import { PostRecord } from "../../src/platforms/records.ts";
import { installedToolClaims } from "../helpers/claims.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { probeMedia } from "../helpers/media.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

const nobelLink = "http://www.nobelprize.org/mediaplayer/?id=2636";

/** mediaplayer.nobelprize.org as yt-dlp's extractor reads it: a page with a JSON-LD VideoObject, and its clip. */
async function startNobelPlayer(): Promise<{ origin: string; close(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "nobel-"));
  await promisify(execFile)("ffmpeg", [
    "-nostdin",
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=160x120:rate=25:duration=2",
    "-f",
    "lavfi",
    "-i",
    "sine=duration=2",
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-movflags",
    "+faststart",
    path.join(dir, "clip.mp4"),
  ]);
  const clip = await readFile(path.join(dir, "clip.mp4"));
  let origin = "";
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith("/mediaplayer/")) {
      const ld = {
        "@context": "https://schema.org",
        "@type": "VideoObject",
        name: "A lecture",
        contentUrl: `${origin}/clip.mp4`,
        uploadDate: "2017-09-08",
      };
      const body = `<html><head><meta name="caption" content="A lecture"><script type="application/ld+json">${
        JSON.stringify(ld)
      }</script></head><body></body></html>`;
      return res.writeHead(200, { "content-type": "text/html" }).end(body);
    }
    if (req.url === "/clip.mp4") {
      return res.writeHead(200, { "content-type": "video/mp4", "content-length": clip.length }).end(clip);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close:
      async () => (server.closeAllConnections(),
        await new Promise((r) => server.close(r)),
        await rm(dir, { recursive: true, force: true })),
  };
}

describe("which links are supported", () => {
  const claims = installedToolClaims();
  afterAll(() => claims.close());
  const all = { extraPageHosts: [], claims };

  test.each([
    ["https://www.ted.com/talks/dan_dennett_on_our_consciousness", "TEDTALK"],
    ["https://yorkshirelad.bandcamp.com/track/the-kitchen", "BANDCAMP"],
    ["https://archive.org/details/XD300-23_68HighlightsAResearchCntAugHumanIntellect", "ARCHIVEORG"],
    [nobelLink, "NOBELPRIZE"],
  ])("with all, %s is %s; listed, it is unsupported", async (url, platform) => {
    expect(await platformOf(new URL(url), all)).toBe(platform);
    expect(await platformOf(new URL(url), { extraPageHosts: [], claims: null })).toBeNull();
  }, scaled(60_000));

  test("with all, a plain web page and a bare image are still unsupported; the table's rows stay theirs", async () => {
    expect(await platformOf(new URL("https://example.org/page"), all)).toBeNull();
    expect(await platformOf(new URL("https://example.org/a.jpg"), all)).toBeNull();
    expect(await platformOf(new URL("https://soundcloud.com/ethmusic/lostin-powers-she-so-heavy"), all)).toBe(
      "SOUNDCLOUD",
    );
  }, scaled(60_000));
});

describe("SUPPORTED_SITES=all through the app", () => {
  let store: TestStore;
  let player: Awaited<ReturnType<typeof startNobelPlayer>>;
  let app: TestApp;
  let listed: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, player] = await Promise.all([openTestStore("pglite"), startNobelPlayer()]);
    const env = { ORIGIN_OVERRIDES: `mediaplayer.nobelprize.org=${player.origin}` };
    app = buildTestApp(store.db, { env: { ...env, SUPPORTED_SITES: "all" } });
    listed = buildTestApp(store.db, { env });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), player?.close()]);
  });

  const call = (on: TestApp, operation: string, url: string) =>
    on.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}`, key);

  test("a site outside the table: its record as the extractor's platform, and its video as MP4", async () => {
    const response = await call(app, "post", nobelLink);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record).toMatchObject({ platform: "NOBELPRIZE", id: "2636", text: "A lecture" });

    const video = await call(app, "download", nobelLink);
    expect(video.status).toBe(200);
    expect(video.headers.get("content-disposition")).toContain('filename="nobelprize_2636.mp4"');
    expect((await probeMedia(new Uint8Array(await video.arrayBuffer()))).streams.sort()).toEqual(["aac", "h264"]);
  }, scaled(120_000));

  test("a plain web page stays 400 unsupported_platform; without all, so is the site outside the table", async () => {
    const page = await call(app, "post", "https://example.org/page");
    expect(page.status).toBe(400);
    expect(((await page.json()) as { code: string }).code).toBe("unsupported_platform");
    const outside = await call(listed, "post", nobelLink);
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as { code: string }).code).toBe("unsupported_platform");
  });
});
