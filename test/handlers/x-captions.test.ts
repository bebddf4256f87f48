// An X video's captions through the whole app, against the local X (test/fakes/x-upstream.ts) and X's
// video host (test/fakes/x-video-host.ts): the subtitle rendition of the video's HLS master playlist (the
// post's `application/x-mpegURL` variant), its media playlist and its WebVTT segments, read by X's own
// reader, are the post's transcript in its formats, each segment's cues on the track's clock
// (X-TIMESTAMP-MAP) and the cue its segments repeat said once; `lang` chooses between a master's tracks;
// a video without captions is 404 no_transcript; a segment on an address the readers may not reach is
// refused without being fetched.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeTweetIds, type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { type FakeXVideoHost, startFakeXVideoHost } from "../fakes/x-video-host.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { scaled } from "../helpers/slowness.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

const nasaVideoPost = "https://x.com/NASA/status/1491475671058681863";
const postOf = (id: string) => `https://x.com/i/status/${id}`;

/** The NASA video's English track: three segments, the second's cues 60 s on by its map, the third repeating one. */
const nasaCues = [
  { start: 0, end: 3, text: "(Captions are auto-generated)" },
  { start: 3, end: 7.5, text: "NASA's Parker Solar Probe has taken its first" },
  { start: 57.5, end: 61.2, text: "visible light images" },
  { start: 61.2, end: 65, text: "of the surface of Venus from space." },
  { start: 118, end: 121.5, text: "The images show the nightside of the planet" },
  { start: 121.5, end: 126, text: "glowing in near-infrared light." },
];

describe("X captions", () => {
  let store: TestStore;
  let x: FakeXUpstream;
  let videoHost: FakeXVideoHost;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, x, videoHost] = await Promise.all([openTestStore("pglite"), startFakeXUpstream(), startFakeXVideoHost()]);
    app = buildTestApp(store.db, {
      env: { X_SYNDICATION_URL: x.syndicationUrl, ORIGIN_OVERRIDES: videoHost.originOverrides },
    });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), x?.close(), videoHost?.close()]);
  });

  const transcript = (url: string, query = "") =>
    app.get(`/api/v1/transcript?url=${encodeURIComponent(url)}${query}`, key);

  test("json: the cues of the master's English track, joined from its three segments on one clock", async () => {
    const before = videoHost.calls("/subtitles/amplify_video/1491441845964001288/");
    const response = await transcript(nasaVideoPost);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-language")).toBe("en");
    expect(await response.json()).toEqual({ lang: "en", auto: true, cues: nasaCues });
    expect(videoHost.calls("/amplify_video/1491441845964001288/pl/_tckWb004eX7m4bb.m3u8")).toBeGreaterThan(0);
    expect(videoHost.calls("/subtitles/amplify_video/1491441845964001288/") - before).toBe(3);
  });

  test("text, srt and vtt", async () => {
    expect(await (await transcript(nasaVideoPost, "&format=text")).text()).toBe(
      "(Captions are auto-generated) NASA's Parker Solar Probe has taken its first\n\n" +
        "visible light images of the surface of Venus from space.\n\n" +
        "The images show the nightside of the planet glowing in near-infrared light.\n",
    );
    const srt = await (await transcript(nasaVideoPost, "&format=srt&lang=en")).text();
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:03,000\n\(Captions are auto-generated\)\n\n2\n/);
    expect(srt).toContain("\n3\n00:00:57,500 --> 00:01:01,200\nvisible light images\n");
    expect(srt).toContain("\n6\n00:02:01,500 --> 00:02:06,000\nglowing in near-infrared light.\n");
    const vtt = await transcript(nasaVideoPost, "&format=vtt");
    expect(vtt.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    const body = await vtt.text();
    expect(body).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:03\.000\n/);
    expect(body).toContain("00:01:58.000 --> 00:02:01.500\nThe images show the nightside of the planet\n");
    expect(body).not.toContain("X-word-ms");
  });

  test("lang chooses between the master's tracks; without it, the first; one it lacks is 400 naming them", async () => {
    const post = postOf(fakeTweetIds.captionsInTwoLanguages);
    expect(await (await transcript(post)).json()).toEqual({
      lang: "en",
      auto: true,
      cues: [{ start: 1, end: 4, text: "The surface of Venus, seen from space." }],
    });
    const spanish = await transcript(post, "&lang=es");
    expect(spanish.headers.get("content-language")).toBe("es");
    expect(await spanish.json()).toEqual({
      lang: "es",
      auto: false,
      cues: [{ start: 1, end: 4, text: "La superficie de Venus, vista desde el espacio." }],
    });
    const lacking = await transcript(post, "&lang=fr");
    expect(lacking.status).toBe(400);
    expect((await lacking.json()).detail).toMatch(/no subtitles in "fr"; it has: en, es/);
  });

  test("a video whose master has no subtitles, a GIF and a post without media are 404 no_transcript", async () => {
    for (const post of [postOf(fakeTweetIds.mixedMedia), postOf("746487912313688067"), postOf("20")]) {
      const response = await transcript(post);
      expect(response.status, post).toBe(404);
      expect((await response.json()).code).toBe("no_transcript");
    }
    expect(videoHost.calls("/file/10/pl/playlist.m3u8")).toBeGreaterThan(0);
  });

  test("a segment on an address the readers may not reach is refused, naming it", async () => {
    const response = await transcript(postOf(fakeTweetIds.captionsOffHost));
    expect(response.status).toBe(502);
    const problem = await response.json();
    expect(problem.code).toBe("upstream_not_allowed");
    expect(problem.detail).toMatch(/X's video host led this server to 169\.254\.169\.254/);
    expect(videoHost.calls("/amplify_video/1000000000000000071/pl/s0/OffHostTrack0000.m3u8")).toBe(1);
  });
});
