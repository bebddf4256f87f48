// Issue 14 items 2 and 3: no path by which a page, a playlist, a redirect or a CDN leads yt-dlp,
// ffmpeg or the relay reaches an address the operator did not trust. Each case points the
// service at a canary (on 127.0.0.2, or on another port of the trusted 127.0.0.1) that must see
// no connection at all, and the caller gets a problem answer, never the canary's bytes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Canary, startCanary } from "../fakes/canary.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

// Once with yt-dlp's program per extraction, once with the extraction host's forks.
describe.each([
  ["yt-dlp's program per extraction", false],
  ["the extraction host", true],
])("the egress gate, with %s", (_, extractionHost) => {
  let store: TestStore;
  let site: MediaSite;
  let cdn: FakeCdn;
  let canary: Canary;
  let sameHostCanary: Canary;
  let test: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, site, cdn, canary, sameHostCanary] = await Promise.all([
      openTestStore("pglite"),
      startMediaSite(),
      startFakeCdn(),
      startCanary("127.0.0.2"),
      startCanary("127.0.0.1"),
    ]);
    test = buildTestApp(store.db, {
      env: { EXTRA_PAGE_HOSTS: site.host, ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}` },
      extractionHost,
    });
    key = (await makeKey(store.db, "GOLD")).plain;
    while (extractionHost && test.extractor.status().state !== "ready") {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, scaled(60_000));
  afterAll(async () => {
    await Promise.all([
      test?.extractor.close(),
      store?.close(),
      site?.close(),
      cdn?.close(),
      canary?.close(),
      sameHostCanary?.close(),
    ]);
  });
  afterEach(() => {
    expect(canary.connections()).toBe(0);
    expect(sameHostCanary.connections()).toBe(0);
  });

  const download = (url: string, extra = "") =>
    test.get(`/api/v1/download?url=${encodeURIComponent(url)}${extra}`, key);
  const crafted = (video: string) => `${site.origin}/crafted.html?video=${encodeURIComponent(video)}`;
  const redirectTo = (target: string) => `${site.origin}/redirect?to=${encodeURIComponent(target)}`;

  async function expectRefused(response: Response, host: string): Promise<void> {
    expect(response.status).toBe(403);
    const problem = await response.json();
    expect(problem.code).toBe("host_not_allowed");
    expect(problem.detail).toContain(host);
  }

  it("refuses a page's media that redirects to a private address (ffmpeg follows it into the gate)", async () => {
    await expectRefused(await download(crafted(redirectTo(`${canary.origin}/clip.mp4`))), canary.host);
  });

  it("refuses an HLS playlist whose segment is on a private address", async () => {
    const playlist = `${site.origin}/crafted.m3u8?segment=${encodeURIComponent(`${canary.origin}/seg-0.ts`)}`;
    const response = await download(crafted(playlist));
    // The playlist itself is fine, so the refusal may come after the first byte: never bytes of the canary.
    if (response.status === 200) await expect(response.arrayBuffer()).rejects.toThrow();
    else await expectRefused(response, canary.host);
  });

  it("refuses an HLS segment written as httpproxy://, which ffmpeg would open itself", async () => {
    const playlist = `${site.origin}/crafted.m3u8?segment=${encodeURIComponent(`httpproxy://${canary.host}/x.ts`)}`;
    await expectRefused(await download(crafted(playlist)), canary.host);
  });

  it("refuses a master playlist whose variant is tcp://, and a media file answered with such a playlist", async () => {
    const master = `${site.origin}/crafted-master.m3u8?variant=${encodeURIComponent(`tcp://${canary.host}/v.m3u8`)}`;
    // Direct mode with audio=mp3 hands ffmpeg the CDN's link, which leads to the master.
    await expectRefused(
      await download(`https://video.twimg.com/redirect/v.m3u8?to=${encodeURIComponent(master)}`, "&audio=mp3"),
      canary.host,
    );
    // Named as an MP4, ffmpeg would read the playlist as HLS and open the variant: it may read media only.
    const response = await download(
      `https://video.twimg.com/redirect/clip.mp4?to=${encodeURIComponent(master)}`,
      "&audio=mp3",
    );
    expect(response.status).toBe(502);
  });

  it("refuses a JSON-LD contentUrl on a private address, also while yt-dlp extracts", async () => {
    const page = `${site.origin}/crafted-ld.html?content=${encodeURIComponent(`${canary.origin}/clip.mp4`)}`;
    const post = await test.get(`/api/v1/post?url=${encodeURIComponent(page)}`, key);
    expect(post.status).not.toBe(500);
    await expectRefused(await download(page), canary.host);
  });

  it("refuses direct mode with audio=mp3 when the CDN redirects ffmpeg to a private address", async () => {
    const media = `https://video.twimg.com/redirect?to=${encodeURIComponent(`${canary.origin}/clip.mp4`)}`;
    await expectRefused(await download(media, "&audio=mp3"), canary.host);
    // The relay refuses the same redirect on its own.
    expect((await download(media)).status).toBe(403);
  });

  it("refuses another port of a trusted host: as a page, and as where media leads", async () => {
    const pageUrl = encodeURIComponent(`${sameHostCanary.origin}/progressive.html`);
    const post = await test.get(`/api/v1/post?url=${pageUrl}`, key);
    expect(post.status).toBe(400);
    expect((await post.json()).code).toBe("unsupported_platform");
    // Not a page of a known host nor a link of X's media hosts: download refuses its host.
    const download403 = await test.get(`/api/v1/download?url=${pageUrl}`, key);
    expect(download403.status).toBe(403);
    expect((await download403.json()).code).toBe("host_not_allowed");
    await expectRefused(await download(crafted(redirectTo(`${sameHostCanary.origin}/clip.mp4`))), sameHostCanary.host);
  });

  it("still fetches the trusted site itself through the gate", async () => {
    const response = await download(site.pages.hls);
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  });
});
