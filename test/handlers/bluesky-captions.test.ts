// A Bluesky video's captions through the whole app, against the local Bluesky (test/fakes/bluesky.ts):
// the caption file of the post's record (`app.bsky.embed.video#caption`), found at the PDS the
// author's DID document names (the PLC directory) and fetched from its getBlob by Bluesky's own
// reader, is the post's transcript in its formats and the subtitle track a download embeds; the
// record lists its language, and a video without captions is 404 no_transcript.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  captionCid,
  captionedVideoPost,
  captionVtt,
  type FakeBluesky,
  linkOf,
  startFakeBluesky,
  videoPost,
} from "../fakes/bluesky.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { scaled } from "../helpers/slowness.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

const [firstCue, secondCue] = ["A carousel of package logos", "all of them hexagonal"];

/** ffprobe's streams (codec and language) of an MP4, and its subtitle stream's text as SRT. */
function subtitleStreams(bytes: Uint8Array) {
  const dir = mkdtempSync(join(tmpdir(), "captions-probe-"));
  try {
    const file = join(dir, "media.mp4");
    writeFileSync(file, bytes);
    const probe = ["-v", "error", "-show_entries", "stream=codec_name,codec_type:stream_tags=language", "-of", "json"];
    const { streams } = JSON.parse(execFileSync("ffprobe", [...probe, file]).toString()) as {
      streams: { codec_name: string; codec_type: string; tags?: { language?: string } }[];
    };
    const text = execFileSync("ffmpeg", ["-v", "error", "-i", file, "-map", "0:s:0", "-f", "srt", "pipe:1"]);
    return { streams, text: text.toString() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("Bluesky captions", () => {
  let store: TestStore;
  let bluesky: FakeBluesky;
  let app: TestApp;
  let key: string;
  const captioned = linkOf(captionedVideoPost);

  beforeAll(async () => {
    [store, bluesky] = await Promise.all([openTestStore("pglite"), startFakeBluesky()]);
    app = buildTestApp(store.db, {
      env: {
        BLUESKY_APPVIEW_URL: bluesky.origin,
        BLUESKY_PLC_URL: bluesky.origin,
        ORIGIN_OVERRIDES: bluesky.originOverrides,
      },
    });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), bluesky?.close()]);
  });

  const call = (operation: string, url: string, query = "") =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key);

  test("the record lists the caption's language; a video without captions lists none", async () => {
    expect((await (await call("post", captioned)).json()).subtitles).toEqual([{ lang: "en", name: null, auto: false }]);
    expect((await (await call("post", linkOf(videoPost))).json()).subtitles).toEqual([]);
  });

  test("the transcript is the caption file, read from the author's PDS, in each format", async () => {
    const json = await call("transcript", captioned);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-language")).toBe("en");
    expect(await json.json()).toEqual({
      lang: "en",
      auto: false,
      cues: [{ start: 0, end: 1.5, text: firstCue }, { start: 1.5, end: 4, text: secondCue }],
    });
    expect(await (await call("transcript", captioned, "&format=vtt")).text()).toBe(captionVtt);
    expect(await (await call("transcript", captioned, "&format=text")).text()).toBe(`${firstCue} ${secondCue}\n`);
    expect(await (await call("transcript", captioned, "&lang=en&format=srt")).text()).toBe(
      `1\n00:00:00,000 --> 00:00:01,500\n${firstCue}\n\n2\n00:00:01,500 --> 00:00:04,000\n${secondCue}\n`,
    );
    const did = captionedVideoPost.author.did;
    expect(bluesky.calls).toContain(`com.atproto.sync.getBlob?${new URLSearchParams({ did, cid: captionCid })}`);
  });

  test("the author's PDS is asked of the directory once for repeated transcripts and downloads, not once each", {
    timeout: scaled(60_000),
  }, async () => {
    const did = captionedVideoPost.author.did;
    const asked = () => bluesky.directoryCalls.filter((each) => each === did).length;
    const before = asked();
    const blobs = () => bluesky.calls.filter((each) => each.startsWith("com.atproto.sync.getBlob?")).length;
    const blobsBefore = blobs();
    for (const format of ["json", "vtt", "text", "srt"]) {
      expect((await call("transcript", captioned, `&format=${format}`)).status).toBe(200);
    }
    const download = await call("download", captioned, "&subtitles=en");
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    // Each transcript still reads the caption file; the directory, at most once (none when an earlier test asked it).
    expect(blobs() - blobsBefore).toBeGreaterThanOrEqual(4);
    expect(asked() - before).toBeLessThanOrEqual(1);
  });

  test("a language the video lacks is 400 naming those it has; a video without captions is 404", async () => {
    const lacking = await call("transcript", captioned, "&lang=fr");
    expect(lacking.status).toBe(400);
    expect((await lacking.json()).detail).toMatch(/no subtitles in "fr"; it has: en/);
    const none = await call("transcript", linkOf(videoPost));
    expect(none.status).toBe(404);
    expect((await none.json()).code).toBe("no_transcript");
  });

  test("a download with subtitles=en embeds the caption as a mov_text stream tagged eng", {
    timeout: scaled(60_000),
  }, async () => {
    const response = await call("download", captioned, "&subtitles=en");
    expect(response.status).toBe(200);
    const { streams, text } = subtitleStreams(new Uint8Array(await response.arrayBuffer()));
    expect(streams.map((stream) => stream.codec_name).sort()).toEqual(["aac", "h264", "mov_text"]);
    expect(streams.find((stream) => stream.codec_type === "subtitle")?.tags?.language).toBe("eng");
    expect(text).toContain(firstCue);
    expect(text).toContain(secondCue);
    const lacking = await call("download", linkOf(videoPost), "&subtitles=en");
    expect(lacking.status).toBe(400);
    expect((await lacking.json()).detail).toMatch(/no subtitles/);
  });
});
