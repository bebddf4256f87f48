// Audio-first posts through the whole app, against a local audio page the real yt-dlp reads:
// the record lists the track's audio variants; `download` gives MP3 at 320k as for any page, and
// `audio=m4a` the source's AAC sound copied as it is, or 400 where the sound is not AAC.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostRecord } from "../../src/platforms/records.ts";
import { aacBitRate, type AudioSite, startAudioSite, trackDurationSec } from "../fakes/audio-site.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { initSegment, probeMedia } from "../helpers/media.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

describe("audio outputs of an audio-first page", () => {
  let store: TestStore;
  let site: AudioSite;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, site] = await Promise.all([openTestStore("pglite"), startAudioSite()]);
    app = buildTestApp(store.db, { env: { EXTRA_PAGE_HOSTS: site.host, METRICS_TOKEN: metricsToken } });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(async () => {
    await Promise.all([store?.close(), site?.close()]);
  });

  const call = (operation: string, url: string, query = "") =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key);
  const metricsToken = "audio-output-metrics";
  /** The slots of each download kind taken so far, as /metrics counts them. */
  const slotsTaken = async () => {
    const text = await (await app.get("/metrics", metricsToken)).text();
    const of = (kind: string) =>
      Number(new RegExp(`^media_api_slots_taken_total\\{kind="${kind}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    return { remuxes: of("remuxes"), encodes: of("encodes") };
  };
  const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

  test("the record lists both audio variants, each with its codec's content type", async () => {
    const response = await call("post", site.pages.track);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record.videoVariants.map((variant) => [variant.qualityLabel, variant.contentType])).toEqual(
      expect.arrayContaining([["audio", "audio/mp4"], ["audio", "audio/mpeg"]]),
    );
    expect(record.videoVariants).toHaveLength(2);
  });

  test("audio=mp3 is MP3 at 320 kbps", async () => {
    const response = await call("download", site.pages.track, "&audio=mp3");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    const media = await probeMedia(await bytesOf(response));
    expect(media.streams).toEqual(["mp3"]);
    expect(media.bitRates).toEqual([320_000]);
  });

  test("audio=m4a is the source's AAC, copied: its bit rate, its length, no picture", async () => {
    const response = await call("download", site.pages.track, "&audio=m4a");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/mp4");
    expect(response.headers.get("content-disposition")).toMatch(/\.m4a"/);
    const media = await probeMedia(await bytesOf(response));
    const source = await probeMedia(site.m4a);
    expect(media.streams).toEqual(["aac"]);
    // A re-encode would have ffmpeg's own bit rate; a copy keeps the source's.
    expect(media.bitRates).toEqual(source.bitRates);
    expect(source.bitRates[0]).toBeGreaterThan(aacBitRate * 0.8);
    expect(Math.abs(media.duration - trackDurationSec)).toBeLessThan(0.2);
  });

  test("audio=m4a of a track whose length the page gives says it before the first fragment, where a player looks", async () => {
    const response = await call("download", site.pages.described, "&audio=m4a");
    expect(response.status).toBe(200);
    const bytes = await bytesOf(response);
    expect((await probeMedia(initSegment(bytes))).duration).toBeCloseTo(trackDurationSec, 2);
    expect((await probeMedia(bytes)).streams).toEqual(["aac"]);
  });

  test("audio=m4a of a track without AAC is 400, saying what it is and what to ask for", async () => {
    const response = await call("download", site.pages.mp3Only, "&audio=m4a");
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe("format_not_available");
    expect(problem.detail).toMatch(/sound is mp3, not AAC.*audio=mp3/);
  });

  test("audio=m4a of an MPEG-TS whose sound is AAC is that AAC in M4A, copied: a remux slot, no encode slot", async () => {
    const before = await slotsTaken();
    const response = await call("download", site.pages.tsAac, "&audio=m4a");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/mp4");
    const media = await probeMedia(await bytesOf(response));
    // The slot taken for it, counted whether or not the short copy has already given it back.
    const after = await slotsTaken();
    expect({ remuxes: after.remuxes - before.remuxes, encodes: after.encodes - before.encodes }).toEqual({
      remuxes: 1,
      encodes: 0,
    });
    expect(media.streams).toEqual(["aac"]);
    // ffmpeg's AAC encoder at its default would be 128 kbps; the copy keeps the source's 96.
    expect(Math.abs(media.bitRates[0]! - aacBitRate)).toBeLessThan(aacBitRate * 0.2);
    expect(Math.abs(media.duration - trackDurationSec)).toBeLessThan(0.3);
  });

  test("audio=m4a of an MPEG-TS whose sound is MP3 is 400 naming the codec ffmpeg read", async () => {
    const response = await call("download", site.pages.tsMp3, "&audio=m4a");
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe("format_not_available");
    expect(problem.detail).toMatch(/sound is mp3, not AAC.*audio=mp3/);
  });
});
