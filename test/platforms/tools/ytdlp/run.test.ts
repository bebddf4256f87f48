import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defaultFfmpegLimits, ffmpegArgs, readFfmpegLog } from "../../../../src/media/ffmpeg.ts";
import { spawnStream } from "../../../../src/processes/child-stream.ts";
import { createCliExtractor } from "../../../../src/processes/extractor.ts";
import { nodeProcesses } from "../../../../src/runtime/node/processes.ts";
import { infoToPost } from "../../../../src/platforms/tools/ytdlp/post.ts";
import { extractInfo, extractInfoArgs } from "../../../../src/platforms/tools/ytdlp/run.ts";
import { chosenFormats, planRemux, selectorFor } from "../../../../src/platforms/tools/ytdlp/selection.ts";
import { clipDurationSec, type MediaSite, startMediaSite } from "../../../fakes/media-site.ts";

const run = promisify(execFile);
const ytdlpPath = "/usr/bin/yt-dlp";
const options = {
  extractor: createCliExtractor(nodeProcesses, { "yt-dlp": ytdlpPath, "gallery-dl": "gallery-dl" }),
  timeoutMs: 20_000,
  socketTimeoutSec: 5,
};
let site: MediaSite;
let outDir: string;

beforeAll(async () => {
  site = await startMediaSite();
  outDir = await mkdtemp(path.join(tmpdir(), "run-test-"));
});
afterAll(async () => {
  await site?.close();
  await rm(outDir, { recursive: true, force: true });
});

/** The whole page-mode path: resolve the selector, plan, run ffmpeg, probe what came out. */
async function download(pageUrl: string, output: "mp4" | "mp3" = "mp4") {
  const info = await extractInfo(pageUrl, { ...options, format: selectorFor(undefined, output) });
  const plan = planRemux(chosenFormats(info), output);
  const child = spawnStream(
    nodeProcesses,
    "ffmpeg",
    ffmpegArgs(plan, defaultFfmpegLimits),
    readFfmpegLog(defaultFfmpegLimits),
  );
  const data = Buffer.from(await new Response(child.stdout).arrayBuffer());
  expect(await child.exited).toBe(0);
  const file = path.join(outDir, `out.${output}`);
  await writeFile(file, data);
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration:stream=codec_name",
    "-of",
    "json",
    file,
  ]);
  const probed = JSON.parse(stdout) as { format: { duration: string }; streams: { codec_name: string }[] };
  return { plan, durationSec: Number(probed.format.duration), codecs: probed.streams.map((s) => s.codec_name).sort() };
}

describe("extractInfoArgs()", () => {
  test("puts the URL after --, so it is never read as an option", () => {
    expect(extractInfoArgs("-x", { format: "18", socketTimeoutSec: 5 })).toEqual([
      "-J",
      "--ignore-config",
      "--no-playlist",
      "--playlist-items",
      "1",
      "--no-warnings",
      "--socket-timeout",
      "5",
      "-f",
      "18",
      "--",
      "-x",
    ]);
  });

  test("a YouTube link gets the JavaScript runtime for its challenges, and the cookie file's copy", () => {
    const args = extractInfoArgs("https://www.youtube.com/watch?v=dQw4w9WgXcQ", {
      jsRuntime: "deno:/opt/deno",
      cookiesFile: "/tmp/c/cookies.txt",
    });
    expect(args.join(" ")).toContain(
      "--no-js-runtimes --js-runtimes deno:/opt/deno --remote-components ejs:npm --cookies /tmp/c/cookies.txt -- https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    );
    expect(extractInfoArgs("https://www.youtube.com/watch?v=a", { jsRuntime: null })).toContain("--no-js-runtimes");
    expect(extractInfoArgs("https://www.youtube.com/watch?v=a", { jsRuntime: null })).not.toContain("--js-runtimes");
  });

  test("describes the entries --playlist-items names; the first alone by default", () => {
    expect(extractInfoArgs("https://a/b", { playlistItems: "1:20" }).slice(0, 6)).toEqual([
      "-J",
      "--ignore-config",
      "--no-playlist",
      "--playlist-items",
      "1:20",
      "--no-warnings",
    ]);
  });

  test("reads a kept description from stdin instead of fetching the page", () => {
    expect(extractInfoArgs("https://a/b", { format: "b", infoJson: "{}" })).toEqual([
      "-J",
      "--ignore-config",
      "--no-playlist",
      "--playlist-items",
      "1",
      "--no-warnings",
      "-f",
      "b",
      "--load-info-json",
      "-",
    ]);
  });
});

describe("extractInfo() against the local site", () => {
  test("progressive page: one format 0 with the page as Referer", async () => {
    const info = await extractInfo(site.pages.progressive, options);
    expect(info).toMatchObject({ url: site.mp4Url, format_id: "0", webpage_url: site.pages.progressive });
    expect(info.http_headers?.Referer).toBe(site.pages.progressive);
    const post = infoToPost(info, "OTHER", new URL(site.pages.progressive));
    expect(post).toMatchObject({
      platform: "OTHER",
      id: "progressive-1",
      posterUrl: `${site.origin}/media/poster.jpg`,
    });
    expect(post.videoVariants).toEqual([{ qualityLabel: "unknown", formatId: "0", contentType: "video/mp4" }]);
  });

  test("split page: the selector resolves to a video and an audio playlist", async () => {
    const info = await extractInfo(site.pages.split, { ...options, format: selectorFor(undefined, "mp4") });
    expect(info.requested_formats?.map((f) => f.url)).toEqual([
      `${site.origin}/split/v.m3u8`,
      `${site.origin}/split/a.m3u8`,
    ]);
    expect(infoToPost(info, "OTHER", new URL(site.pages.split)).videoVariants).toEqual([
      { qualityLabel: "120p", formatId: "hls-150+ba[ext=m4a]/hls-150+ba/hls-150", contentType: "video/mp4" },
    ]);
  });

  test("a post's formatId works as the download format", async () => {
    const info = await extractInfo(site.pages.split, { ...options, format: "hls-150+ba[ext=m4a]/hls-150+ba/hls-150" });
    expect(info.requested_formats?.map((f) => f.format_id)).toEqual(["hls-150", "hls-aud-English"]);
  });

  test("a page with two videos is a playlist of both; --playlist-items 2 with a selector picks formats of the second alone", async () => {
    const all = await extractInfo(site.pages.twoVideos, { ...options, playlistItems: "1:5" });
    expect(all._type).toBe("playlist");
    expect(all.entries?.map((entry) => entry?.url)).toEqual([site.mp4Url, `${site.origin}/media/short.mp4`]);
    const second = await extractInfo(site.pages.twoVideos, { ...options, playlistItems: "2", format: "b" });
    expect(second.entries?.map((entry) => entry?.url)).toEqual([`${site.origin}/media/short.mp4`]);
  });

  test("a <track kind=subtitles> is the entry's subtitles", async () => {
    const info = await extractInfo(site.pages.subtitled, options);
    expect(info.subtitles).toEqual({
      en: [expect.objectContaining({ url: `${site.origin}/media/en.vtt`, ext: "vtt" })],
    });
  });

  test("unsupported page is 400 unsupported_url", async () => {
    await expect(extractInfo(site.pages.noMedia, options)).rejects.toMatchObject({
      status: 400,
      code: "unsupported_url",
    });
  });

  // Issue 43, item 4: not one phantom item with the feed's title and signed links that fail.
  test("an RSS feed with no items is 404 no_media, not a playlist to make an item of", async () => {
    await expect(extractInfo(site.pages.emptyFeed, { ...options, playlistItems: "1:20" })).rejects.toMatchObject({
      status: 404,
      code: "no_media",
    });
  });

  test("a format that does not exist is 400 format_not_available", async () => {
    await expect(extractInfo(site.pages.progressive, { ...options, format: "999" })).rejects.toMatchObject({
      status: 400,
      code: "format_not_available",
    });
  });

  test("missing page is 404 not_found", async () => {
    await expect(extractInfo(site.pages.missing, options)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  test("a site that rate-limits this server is 502 upstream_blocked", async () => {
    await expect(extractInfo(site.pages.rateLimited, options)).rejects.toMatchObject({
      status: 502,
      code: "upstream_blocked",
    });
  });

  test("connection refused is 502 upstream_failed", async () => {
    await expect(extractInfo("http://127.0.0.1:1/video", options)).rejects.toMatchObject({
      status: 502,
      code: "upstream_failed",
    });
  });

  test("past the time cap yt-dlp is killed: 504", async () => {
    await expect(extractInfo(site.pages.progressive, { ...options, timeoutMs: 50 })).rejects.toMatchObject({
      status: 504,
      code: "upstream_timeout",
    });
  });
});

describe("page mode end to end (yt-dlp -J -f, then ffmpeg on the URLs)", () => {
  test("progressive MP4", async () => {
    const result = await download(site.pages.progressive);
    expect(result.codecs).toEqual(["aac", "h264"]);
    expect(result.durationSec).toBeCloseTo(clipDurationSec, 0);
    expect(site.requestLog.some((r) => r.path === "/media/clip.mp4" && r.referer === site.pages.progressive)).toBe(
      true,
    );
  });

  test("separate video and audio HLS merged into one MP4", async () => {
    const result = await download(site.pages.split);
    expect(result.plan.inputs).toHaveLength(2);
    expect(result.codecs).toEqual(["aac", "h264"]);
    expect(result.durationSec).toBeCloseTo(clipDurationSec, 0);
  });

  test("muxed HLS of MPEG-TS segments", async () => {
    const result = await download(site.pages.hls);
    expect(result.plan.adtsAudio).toBe(true);
    expect(result.codecs).toEqual(["aac", "h264"]);
    expect(result.durationSec).toBeCloseTo(clipDurationSec, 0);
  });

  test("MP3 from the split page reads only the audio playlist", async () => {
    const result = await download(site.pages.split, "mp3");
    expect(result.plan.inputs.map((i) => i.url)).toEqual([`${site.origin}/split/a.m3u8`]);
    expect(result.codecs).toEqual(["mp3"]);
  });
});
