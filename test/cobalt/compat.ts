// The cobalt door held to cobalt's API as its clients use it: the built service as a process with
// COBALT_PORT set, local platforms, and the requests of cobalt's web app, a Raycast extension, an
// Android client and an instance tracker replayed as each sends them (what each sends and reads,
// and where that was read, is in test/fakes/cobalt-clients/PROVENANCE.md). Each runtime's test
// file runs it against that runtime's bundle.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeCdn, fakeSha256, startFakeCdn } from "../fakes/cdn.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import {
  fakeTweetIds,
  type FakeXUpstream,
  fixturesDir,
  mixedMediaFiles,
  startFakeXUpstream,
} from "../fakes/x-upstream.ts";
import { probeMedia } from "../helpers/media.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";

export interface RuntimeUnderTest {
  name: string;
  command: string[];
}

/** cobalt's codes, as cobalt's web app has texts for them (web/i18n/en/error/api.json). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The recorded NASA video post under an id of its own, its one video a file of the fake CDN. */
function videoPost(id: string): unknown {
  const recorded = JSON.parse(
    readFileSync(join(fixturesDir, "syndication/video_nasa_1491475671058681863.json"), "utf8"),
  );
  recorded.id_str = id;
  recorded.mediaDetails[0].video_info.variants = [
    { bitrate: 2176000, content_type: "video/mp4", url: "https://video.twimg.com/file/4000/vid/1280x720/clip.mp4" },
    { bitrate: 832000, content_type: "video/mp4", url: "https://video.twimg.com/file/2500/vid/640x360/clip.mp4" },
  ];
  return recorded;
}

const sha256 = async (response: Response) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", await response.arrayBuffer())).toString("hex");

export function cobaltSuite(runtime: RuntimeUnderTest): void {
  describe(`cobalt's clients against the door under ${runtime.name}`, () => {
    let x: FakeXUpstream;
    let cdn: FakeCdn;
    let site: MediaSite;
    let service: RunningService;
    let dataDir: string;
    let door: string;
    let key: string;
    let freeKey: string;
    const videoId = "1491475671058681777";

    /** POST / as cobalt's clients send it: JSON both ways, the key as cobalt's `Api-Key`. */
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${door}/`, {
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/json",
          authorization: `Api-Key ${key}`,
          ...headers,
        },
        body: JSON.stringify(body),
      });

    beforeAll(async () => {
      [x, cdn, site] = await Promise.all([startFakeXUpstream(), startFakeCdn(), startMediaSite()]);
      dataDir = mkdtempSync(join(tmpdir(), `cobalt-${runtime.name}-`));
      service = await startService(
        {
          DATA_DIR: dataDir,
          COBALT_PORT: "0",
          X_SYNDICATION_URL: x.syndicationUrl,
          X_GRAPHQL_URL: "off",
          ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin},pbs.twimg.com=${cdn.origin}`,
          EXTRA_PAGE_HOSTS: site.host,
          X_CACHE_TTL_S: "3600",
          PAGE_CACHE_TTL_S: "3600",
        },
        runtime.command,
        process.cwd(),
        scaled(120_000),
      );
      door = /cobalt door open at (http:\/\/\S+?)"/.exec(service.output.join("\n"))![1]!;
      const admin = { DATA_DIR: dataDir };
      await runAdmin(["users", "create", "--email", "cobalt@example.com"], admin, "cobalt password\n");
      const make = async (tier: string) =>
        (await runAdmin(["keys", "create", "--email", "cobalt@example.com", "--tier", tier, "--shape", "uuid"], admin))
          .stdout.trim();
      [key, freeKey] = [await make("GOLD"), await make("FREE")];
      // The video post is answered once, then held in the X cache for the whole suite; every other id as recorded.
      x.setMode("syndication", { kind: "json", body: videoPost(videoId) });
      const warm = await fetch(`${service.url}/api/v1/post?url=https://x.com/NASA/status/${videoId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(warm.status).toBe(200);
      x.setMode("syndication", { kind: "normal" });
      // The page's record is read once here and then cached: what is replayed below is the clients' requests, and
      // yt-dlp on a busy machine may take longer than the 18 s the door answers within.
      const page = await fetch(`${service.url}/api/v1/post?url=${encodeURIComponent(site.pages.progressive)}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(page.status).toBe(200);
    }, scaled(180_000));
    afterAll(async () => {
      await service?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      await Promise.all([x?.close(), cdn?.close(), site?.close()]);
    });

    it("makes keys shaped as cobalt's web app takes them", () => {
      expect(key).toMatch(UUID);
      expect(freeKey).toMatch(UUID);
    });

    it("replays cobalt's web app: GET /, POST / with its default body, the tunnel's &p=1 probe, the tunnel", async () => {
      const info = await fetch(`${door}/`, { redirect: "manual" });
      expect(info.status).toBe(200);
      const body = await info.json();
      expect(body).not.toHaveProperty("status");
      expect(body.cobalt).not.toHaveProperty("turnstileSitekey");
      expect(body.cobalt.url).toBe(`${door}/`);
      expect(body.cobalt.startTime).toMatch(/^\d{13}$/);
      expect(body.cobalt.services).toEqual(expect.arrayContaining(["twitter", "youtube", "bluesky", "threads"]));
      expect(Object.keys(body.git).sort()).toEqual(["branch", "commit", "remote"]);

      // A tweet's video is one file of X's CDN: cobalt hands it over as it is (a redirect), and so does the door.
      const handed = await post({ url: `https://x.com/NASA/status/${videoId}`, localProcessing: "preferred" });
      expect(await handed.json()).toEqual({
        status: "redirect",
        url: "https://video.twimg.com/file/4000/vid/1280x720/clip.mp4",
        filename: expect.stringMatching(/^.+ - NASA \(\d+p\)\.mp4$/),
      });
      // With the web app's "always tunnel" (its save.alwaysProxy setting) the file comes through the door.
      const response = await post({
        url: `https://x.com/NASA/status/${videoId}`,
        localProcessing: "preferred",
        alwaysProxy: true,
      });
      expect(response.status).toBe(200);
      const answer = await response.json();
      expect(answer).toEqual({ status: "tunnel", url: expect.any(String), filename: expect.stringMatching(/\.mp4$/) });
      expect(answer.filename).toMatch(/^.+ - NASA \(\d+p\)\.mp4$/);
      expect(answer.url.startsWith(`${door}/tunnel?`)).toBe(true);

      const probe = await fetch(`${answer.url}&p=1`);
      expect([probe.status, await probe.text()]).toEqual([200, ""]);
      const forged = await fetch(`${answer.url.replace(/sig=[^&]+/, "sig=" + "A".repeat(43))}&p=1`);
      expect(forged.status).toBe(403);

      const file = await fetch(answer.url, { headers: { origin: "https://cobalt.example" } });
      expect(file.status).toBe(200);
      expect(file.headers.get("content-disposition")).toMatch(/^attachment;/);
      expect(file.headers.get("content-disposition")).toContain("NASA");
      expect(file.headers.get("access-control-allow-origin")).toBe("*");
      expect(file.headers.get("access-control-expose-headers")).toMatch(/Estimated-Content-Length/);
      expect(file.headers.get("access-control-expose-headers")).toMatch(/Content-Disposition/);
      expect(await sha256(file)).toBe(fakeSha256(0, 4000));
    });

    it("answers the tunnel's Range as the download does", async () => {
      const answer = await (await post({ url: `https://x.com/NASA/status/${videoId}`, alwaysProxy: true })).json();
      const part = await fetch(answer.url, { headers: { range: "bytes=100-199" } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe("bytes 100-199/4000");
      expect((await part.arrayBuffer()).byteLength).toBe(100);
    });

    it("replays the Raycast extension: cobalt 10's twitterGif and tiktokH265 taken, a picker whose files name themselves", async () => {
      const response = await post({
        url: `https://x.com/someone/status/${fakeTweetIds.mixedMedia}`,
        downloadMode: "auto",
        youtubeVideoCodec: "h264",
        videoQuality: "max",
        audioFormat: "mp3",
        filenameStyle: "nerdy",
        alwaysProxy: true,
        disableMetadata: false,
        youtubeHLS: false,
        twitterGif: true,
        tiktokFullAudio: false,
        tiktokH265: false,
      }, { "user-agent": "raycast-cobalt/20241120" });
      expect(response.status).toBe(200);
      const answer = await response.json();
      expect(answer.status).toBe("picker");
      expect(answer.picker.map((item: { type: string }) => item.type)).toEqual(["photo", "video", "photo"]);
      for (const [at, item] of (answer.picker as { url: string }[]).entries()) {
        const file = await fetch(item.url);
        expect(file.status).toBe(200);
        expect(file.headers.get("content-disposition")).toContain(`twitter, ${fakeTweetIds.mixedMedia}`);
        expect(await sha256(file)).toBe(fakeSha256(0, mixedMediaFiles[at]!.size));
      }
    });

    it("replays an Android client: a boolean localProcessing, `; charset=utf-8`, a page-mode video of the test platform", async () => {
      const response = await post({ url: site.pages.progressive, localProcessing: true }, {
        "content-type": "application/json; charset=utf-8",
      });
      expect(response.status).toBe(200);
      const answer = await response.json();
      expect(answer.status).toBe("tunnel");
      const file = await fetch(answer.url);
      expect(file.status).toBe(200);
      const bytes = new Uint8Array(await file.arrayBuffer());
      expect((await probeMedia(bytes)).streams.sort()).toEqual(["aac", "h264"]);
    });

    it("replays a tracker: HEAD /api/serverInfo, GET it, POST {url}, HEAD the tunnel with a length that is not 0", async () => {
      const head = await fetch(`${door}/api/serverInfo`, { method: "HEAD" });
      expect(head.status).toBe(200);
      const info = await (await fetch(`${door}/api/serverInfo`)).json();
      expect(info.git.commit.length).toBeGreaterThanOrEqual(6);
      expect(Number(info.cobalt.startTime)).toBeGreaterThan(0);
      // A redirect passes a tracker's test as it is; a tunnel it HEADs.
      expect((await (await post({ url: `https://x.com/NASA/status/${videoId}` })).json()).status).toBe("redirect");
      const answer = await (await post({ url: `https://x.com/NASA/status/${videoId}`, alwaysProxy: true })).json();
      expect(answer.status).toBe("tunnel");
      const tunnel = await fetch(answer.url, { method: "HEAD" });
      expect(tunnel.status).toBe(200);
      const length = tunnel.headers.get("content-length") ?? tunnel.headers.get("estimated-content-length");
      expect(Number(length)).toBeGreaterThan(0);
      const page = await (await post({ url: site.pages.progressive })).json();
      const pageHead = await fetch(page.url, { method: "HEAD" });
      expect(pageHead.status).toBe(200);
      expect(pageHead.headers.get("content-length")).not.toBe("0");
    });

    it("answers audio as our MP3 and a forced local processing with the fields cobalt's web app reads", async () => {
      const audio = await (await post({ url: site.pages.progressive, downloadMode: "audio", audioFormat: "best" }))
        .json();
      expect(audio.status).toBe("tunnel");
      expect(audio.filename).toMatch(/\.mp3$/);
      const sound = await fetch(audio.url);
      expect((await probeMedia(new Uint8Array(await sound.arrayBuffer()))).streams).toEqual(["mp3"]);
      const forced = await (await post({ url: `https://x.com/NASA/status/${videoId}`, localProcessing: "forced" }))
        .json();
      expect(forced).toMatchObject({
        status: "local-processing",
        type: "proxy",
        service: "twitter",
        output: { type: "video/mp4", filename: expect.stringMatching(/\.mp4$/) },
      });
      expect(forced.tunnel).toHaveLength(1);
      expect((await fetch(`${forced.tunnel[0]}&p=1`)).status).toBe(200);
    });

    it("answers mute as the video without its sound, through the download's mute", async () => {
      const answer = await (await post({ url: site.pages.progressive, downloadMode: "mute" })).json();
      expect(answer.status).toBe("tunnel");
      expect(answer.filename).toMatch(/mute\)\.mp4$/);
      const file = await fetch(answer.url);
      expect(file.status).toBe(200);
      expect((await probeMedia(new Uint8Array(await file.arrayBuffer()))).streams).toEqual(["h264"]);
      const both = await fetch(
        `${service.url}/api/v1/download?url=${encodeURIComponent(site.pages.progressive)}&mute=true&audio=mp3`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect([both.status, (await both.json()).code]).toEqual([400, "invalid_parameter"]);
    });

    it("says its errors in cobalt's codes", async () => {
      const code = async (response: Response) => [response.status, (await response.json()).error.code];
      const url = `https://x.com/NASA/status/${videoId}`;
      expect(await code(await post({ url: "https://example.com/watch?v=1" }))).toEqual([400, "error.api.link.invalid"]);
      expect(await code(await post({ url: "not a link" }))).toEqual([400, "error.api.link.invalid"]);
      expect(await code(await post({ videoQuality: "720" }))).toEqual([400, "error.api.link.missing"]);
      expect(await code(await post({ url, videoQuality: "9999" }))).toEqual([400, "error.api.invalid_body"]);
      expect(await code(await post({ url }, { accept: "text/html" }))).toEqual([400, "error.api.header.accept"]);
      expect(await code(await post({ url }, { "content-type": "text/plain" }))).toEqual([
        400,
        "error.api.header.content_type",
      ]);
      const keyless = await fetch(`${door}/`, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
      expect(await code(keyless)).toEqual([400, "error.api.auth.key.missing"]);
      expect(await code(await post({ url }, { authorization: "Basic abc" }))).toEqual([
        400,
        "error.api.auth.key.not_api_key",
      ]);
      expect(await code(await post({ url }, { authorization: "Api-Key not-a-key" }))).toEqual([
        400,
        "error.api.auth.key.invalid",
      ]);
      expect(await code(await post({ url }, { authorization: `Api-Key ${crypto.randomUUID()}` }))).toEqual([
        400,
        "error.api.auth.key.not_found",
      ]);
      const session = await fetch(`${door}/session`, { method: "POST" });
      expect(await code(session)).toEqual([400, "error.api.auth.not_configured"]);
    });

    it("counts a cobalt request once on its key, and says a spent quota as cobalt's rate_exceeded with Retry-After", async () => {
      const usage = async () =>
        Number(
          (await fetch(`${service.url}/api/v1/usage`, { headers: { authorization: `Bearer ${freeKey}` } })).headers
            .get("x-ratelimit-remaining"),
        );
      const before = await usage();
      const url = `https://x.com/NASA/status/${videoId}`;
      expect((await post({ url }, { authorization: `Api-Key ${freeKey}` })).status).toBe(200);
      // The usage call itself is one more; FREE's burst is 10 calls a minute, the three so far among them.
      expect(before - (await usage())).toBe(2);
      let last: Response | undefined;
      for (let sent = 4; sent <= 10; sent++) last = await post({ url }, { authorization: `Api-Key ${freeKey}` });
      expect(last!.status).toBe(200);
      const refused = await post({ url }, { authorization: `Api-Key ${freeKey}` });
      expect(refused.status).toBe(429);
      const answer = await refused.json();
      expect(answer.error.code).toBe("error.api.rate_exceeded");
      expect(answer.error.context.limit).toBeGreaterThan(0);
      expect(refused.headers.get("retry-after")).toBe(String(answer.error.context.limit));
    });
  });
}
