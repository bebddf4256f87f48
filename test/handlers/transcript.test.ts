// GET /api/v1/transcript through the whole app, against a local page whose `<track>` the real
// yt-dlp lists as English subtitles (WebVTT), and against the recorded YouTube post with subtitles
// and Vimeo post without (test/fakes/recorded-youtube.ts): the cues in the four formats, and 404
// for a post with no track.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type MediaSite, startMediaSite, subtitleCues } from "../fakes/media-site.ts";
import { recordedPosts, type RecordedYoutube, startRecordedYoutube, timedtextCues } from "../fakes/recorded-youtube.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

describe("transcripts", () => {
  let store: TestStore;
  let site: MediaSite;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, site] = await Promise.all([openTestStore("pglite"), startMediaSite()]);
    app = buildTestApp(store.db, { env: { EXTRA_PAGE_HOSTS: site.host } });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), site?.close()]);
  });

  const transcript = (url: string, query = "") =>
    app.get(`/api/v1/transcript?url=${encodeURIComponent(url)}${query}`, key);

  test("json: the track's cues with their times, its language and kind", { timeout: scaled(60_000) }, async () => {
    const response = await transcript(site.pages.subtitled, "&lang=en");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-language")).toBe("en");
    expect(await response.json()).toEqual({
      lang: "en",
      auto: false,
      cues: [
        { start: 0, end: 1.5, text: subtitleCues[0] },
        { start: 1.5, end: 3, text: subtitleCues[1] },
      ],
    });
  });

  test("text, srt and vtt", { timeout: scaled(60_000) }, async () => {
    const text = await transcript(site.pages.subtitled, "&format=text");
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await text.text()).toBe(`${subtitleCues[0]} ${subtitleCues[1]}\n`);
    const srt = await transcript(site.pages.subtitled, "&format=srt");
    expect(await srt.text()).toBe(
      `1\n00:00:00,000 --> 00:00:01,500\n${subtitleCues[0]}\n\n2\n00:00:01,500 --> 00:00:03,000\n${subtitleCues[1]}\n`,
    );
    const vtt = await transcript(site.pages.subtitled, "&format=vtt");
    expect(vtt.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
    expect(await vtt.text()).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:01\.500\n/);
  });

  test("a language the post lacks is 400 naming those it has", { timeout: scaled(60_000) }, async () => {
    const response = await transcript(site.pages.subtitled, "&lang=fr");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/no subtitles in "fr"; it has: en/);
  });

  test("a post without subtitles is 404 no_transcript", { timeout: scaled(60_000) }, async () => {
    const response = await transcript(site.pages.progressive);
    expect(response.status).toBe(404);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe("no_transcript");
    expect(problem.detail).toMatch(/no subtitles or automatic captions/);
  });
});

describe("transcripts of recorded posts", () => {
  let store: TestStore;
  let youtube: RecordedYoutube;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, youtube] = await Promise.all([openTestStore("pglite"), startRecordedYoutube()]);
    app = buildTestApp(store.db, { env: youtube.env });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), youtube?.close()]);
  });

  const transcript = (url: string, query = "") =>
    app.get(`/api/v1/transcript?url=${encodeURIComponent(url)}${query}`, key);

  test("a YouTube post with subtitles, in the four formats", { timeout: scaled(60_000) }, async () => {
    const [first, second] = timedtextCues("en");
    const json = await transcript(recordedPosts.subtitled, "&lang=en");
    expect(json.status).toBe(200);
    expect(json.headers.get("content-language")).toBe("en");
    expect(await json.json()).toEqual({
      lang: "en",
      auto: false,
      cues: [{ start: 1.2, end: 3.9, text: first }, { start: 6, end: 7.25, text: second }],
    });
    expect(await (await transcript(recordedPosts.subtitled, "&lang=en&format=text")).text()).toBe(
      `${first}\n\n${second}\n`,
    );
    expect(await (await transcript(recordedPosts.subtitled, "&lang=en&format=srt")).text()).toBe(
      `1\n00:00:01,200 --> 00:00:03,900\n${first}\n\n2\n00:00:06,000 --> 00:00:07,250\n${second}\n`,
    );
    expect(await (await transcript(recordedPosts.subtitled, "&lang=en&format=vtt")).text()).toBe(
      `WEBVTT\n\n00:00:01.200 --> 00:00:03.900\n${first}\n\n00:00:06.000 --> 00:00:07.250\n${second}\n`,
    );
  });

  test("a post without subtitles is 404 no_transcript, saying so", { timeout: scaled(60_000) }, async () => {
    const response = await transcript(recordedPosts.unsubtitled);
    expect(response.status).toBe(404);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe("no_transcript");
    expect(problem.detail).toMatch(/no subtitles or automatic captions/);
  });
});
