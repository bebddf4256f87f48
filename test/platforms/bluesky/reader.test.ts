// The Bluesky source against a local AppView and video host that answer with the recordings.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bluesky } from "../../../src/platforms/bluesky/platform.ts";
import { createBlueskySource } from "../../../src/platforms/bluesky/reader.ts";
import type { Link, Wanted } from "../../../src/platforms/source.ts";
import {
  blockedRkey,
  type FakeBluesky,
  imagesThread,
  linkOf,
  quoteOfVideo,
  startFakeBluesky,
  streams,
  videoPost,
} from "../../fakes/bluesky.ts";
import { testOutbound } from "../../helpers/outbound.ts";
import { scaled } from "../../helpers/slowness.ts";

let fake: FakeBluesky;
beforeAll(async () => {
  fake = await startFakeBluesky();
}, scaled(120_000));
afterAll(() => fake?.close());

const source = () =>
  createBlueskySource({
    platform: bluesky,
    appViewUrl: fake.origin,
    plcUrl: fake.origin,
    cacheTtlMs: 60_000,
    cacheMaxEntries: 10,
    originOverrides: overrides(),
    outbound: testOutbound({
      name: "Bluesky",
      timeoutMs: 10_000,
      trustedOrigins: [fake.origin],
      originOverrides: overrides(),
    }),
  });
const overrides = () => new Map([["cdn.bsky.app", fake.origin], ["video.bsky.app", fake.origin]]);
const link = (url: string): Link => ({ url: new URL(url), platform: "BLUESKY" });
const wanted = (more: Partial<Wanted> = {}): Wanted => ({
  output: "mp4",
  format: null,
  index: null,
  subtitles: null,
  filename: null,
  clip: null,
  ...more,
});
// Bluesky's source hands no link to another source; no slot is held here.
const asker = { signal: new AbortController().signal, holder: null };

describe("createBlueskySource()", () => {
  test("resolves the handle, reads the post once, and keeps it", async () => {
    const bluesky = source();
    const post = link(linkOf(imagesThread.thread.post));
    const before = fake.calls.length;
    const record = await bluesky.describe(post);
    expect(record).toMatchObject({ platform: "BLUESKY", id: "3k7qmjev5lr2s", authorName: "Soubhik Barari" });
    await bluesky.describe(post);
    expect(fake.calls.slice(before)).toEqual([
      "com.atproto.identity.resolveHandle?handle=soubhikbarari.bsky.social",
      "app.bsky.feed.getPostThread?uri=at%3A%2F%2Fdid%3Aplc%3Aic6zqvuw5ulmfpjiwnhsr2ns%2Fapp.bsky.feed.post%2F3k7qmjev5lr2s&depth=0&parentHeight=0",
    ]);
    await bluesky.describe(post, { uncached: true });
    expect(fake.calls.length).toBe(before + 4);
  });

  test("a link by DID asks for no handle", async () => {
    const before = fake.calls.length;
    await source().describe(link(`https://bsky.app/profile/${videoPost.author.did}/post/3lc7pjcxyz22c`));
    expect(fake.calls.slice(before).map((call) => call.split("?")[0])).toEqual(["app.bsky.feed.getPostThread"]);
  });

  test.each([
    ["a deleted post", "https://bsky.app/profile/chriskenny.bsky.social/post/3lgone0000002", "not_found"],
    ["an unknown handle", "https://bsky.app/profile/nobody.example.com/post/3lc7pjcxyz22c", "not_found"],
    ["a blocked post", `https://bsky.app/profile/chriskenny.bsky.social/post/${blockedRkey}`, "post_unavailable"],
  ])("%s is 404 %s", async (_, url, code) => {
    await expect(source().describe(link(url))).rejects.toMatchObject({ status: 404, code });
  });

  test("a video's plan remuxes the master's best stream, from the video host", async () => {
    const plan = await source().plan(link(linkOf(quoteOfVideo)), wanted(), asker);
    expect(plan).toMatchObject({ kind: "remux", name: "bluesky_3lc7q2n2vik2i", durationSec: null });
    if (plan.kind !== "remux") throw new Error("not a remux");
    expect(plan.ffmpeg).toMatchObject({
      output: "mp4",
      videoInput: 0,
      audioInput: 0,
      adtsAudio: true,
      transcodeVideo: false,
      transcodeAudio: false,
    });
    expect(plan.ffmpeg.inputs).toEqual([{
      url: expect.stringMatching(new RegExp(`^${fake.origin}/watch/.*/${streams[1]!.name}/video\\.m3u8$`)),
      headers: {},
      hls: true,
    }]);
  });

  test("a photo's plan relays it from Bluesky's CDN, and only from there", async () => {
    const plan = await source().plan(link(linkOf(imagesThread.thread.post)), wanted({ index: 1 }), asker);
    if (plan.kind !== "relay") throw new Error("not a relay");
    expect(plan.url.href).toMatch(/^https:\/\/cdn\.bsky\.app\/img\/feed_fullsize\//);
    expect(plan.name).toBe("bluesky_3k7qmjev5lr2s_1");
    expect(() => plan.allowed(new URL("https://cdn.example.com/a.jpg"))).toThrow(
      expect.objectContaining({ code: "host_not_allowed" }),
    );
  });

  test.each([
    ["an index past the last item", wanted({ index: 2 }), "invalid_parameter"],
    ["sound from a photo", wanted({ output: "mp3" }), "invalid_parameter"],
    ["a variant of a photo", wanted({ format: "720p" }), "format_not_available"],
    ["subtitles", wanted({ subtitles: "en" }), "invalid_parameter"],
  ])("%s is 400", async (_, asked, code) => {
    await expect(source().plan(link(linkOf(imagesThread.thread.post)), asked, asker)).rejects.toMatchObject({
      status: 400,
      code,
    });
  });
});
