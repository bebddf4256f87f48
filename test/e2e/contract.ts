// The black-box contract: the built service as a process, called over HTTP, with local fake
// upstreams. Each runtime's test file runs it against that runtime's bundle.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeCdn, fakeSha256, startFakeCdn } from "../fakes/cdn.ts";
import { clipDurationSec, type MediaSite, shortClipDurationSec, startMediaSite } from "../fakes/media-site.ts";
import {
  fakeTweetIds,
  type FakeXUpstream,
  fixturesDir,
  mixedMediaFiles,
  startFakeXUpstream,
} from "../fakes/x-upstream.ts";
import {
  type FakeXiaohongshu,
  photoBytes,
  photoNote,
  shortCode,
  startFakeXiaohongshu,
  videoNote,
} from "../fakes/xiaohongshu.ts";
import {
  carouselPost,
  type FakeThreads,
  files as threadsFiles,
  startFakeThreads,
  threadsAccess,
} from "../fakes/threads.ts";
import { initSegment, probeMedia, runningTools, snapshotFiles, toolsLeft } from "../helpers/media.ts";
import { malformedRequests, rawRequest } from "../helpers/raw-http.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { holdsWithin, settled, until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

export interface RuntimeUnderTest {
  name: string;
  /** Executable and arguments that start the service from the built bundle. */
  command: string[];
}

/**
 * For an instance of its own that only relays X's media: nothing runs an extraction, so it starts
 * without the extraction host (about 3 CPU seconds a start). That is the one of the idle-cut and
 * grace-period-over tests; the shared instance and the one the SIGKILL test kills keep the host on.
 */
const relayOnly = { EXTRACTION_HOST: "off" };

interface Instance {
  service: RunningService;
  dataDir: string;
  key: string;
  get(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the service if it still runs and removes its data. */
  dispose(): Promise<void>;
}

export function contractSuite(runtime: RuntimeUnderTest): void {
  describe(`the service under ${runtime.name}`, () => {
    let x: FakeXUpstream;
    let cdn: FakeCdn;
    let site: MediaSite;
    let xiaohongshu: FakeXiaohongshu;
    let threads: FakeThreads;
    let receiver: Receiver;
    let tmp: string;
    let instance: Instance;
    let service: RunningService;
    let get: Instance["get"];

    /** A service of its own with the embedded store, and a GOLD key made through the admin socket. */
    async function startInstance(env: Record<string, string> = {}): Promise<Instance> {
      const dataDir = mkdtempSync(join(tmpdir(), `contract-${runtime.name}-`));
      let started: RunningService | undefined;
      const dispose = async () => {
        await started?.stop();
        rmSync(dataDir, { recursive: true, force: true });
      };
      try {
        started = await startService(
          {
            DATA_DIR: dataDir,
            X_SYNDICATION_URL: x.syndicationUrl,
            X_GRAPHQL_URL: "off",
            X_TIMEOUT_MS: String(scaled(5_000)),
            ORIGIN_OVERRIDES:
              `video.twimg.com=${cdn.origin},pbs.twimg.com=${cdn.origin},ton.twimg.com=${site.origin},${xiaohongshu.originOverrides},${threads.originOverrides}`,
            THREADS_QUERY_ID: threadsAccess.queryId,
            EXTRA_PAGE_HOSTS: site.host,
            TRUST_PROXY: "127.0.0.1,::1",
            TMPDIR: tmp,
            ...env,
          },
          runtime.command,
        );
        const adminEnv = { DATA_DIR: dataDir };
        await runAdmin(["users", "create", "--email", "contract@example.com"], adminEnv, "contract password\n");
        const key = (await runAdmin(["keys", "create", "--email", "contract@example.com", "--tier", "GOLD"], adminEnv))
          .stdout.trim();
        return { service: started, dataDir, key, get: keyedGet(started.url, key), dispose };
      } catch (error) {
        await dispose();
        throw error;
      }
    }

    /** fetch with `key` as the bearer. */
    const keyedGet = (url: string, key: string): Instance["get"] => (path, init = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });

    beforeAll(async () => {
      tmp = mkdtempSync(join(tmpdir(), `contract-tmp-${runtime.name}-`));
      [x, cdn, site, xiaohongshu, threads, receiver] = await Promise.all([
        startFakeXUpstream(),
        startFakeCdn(),
        startMediaSite(),
        startFakeXiaohongshu(),
        startFakeThreads(),
        startReceiver(),
      ]);
      // The grace period is the last test's, which stops this instance ("stopping on SIGTERM").
      instance = await startInstance({ SHUTDOWN_GRACE_MS: "20000", WEBHOOK_EXTRA_HOSTS: receiver.endpoint });
      ({ service, get } = instance);
    });
    afterAll(async () => {
      // The last test has stopped the service, unless it failed first; dispose stops it only if it runs.
      await instance?.dispose();
      await Promise.all([
        x?.close(),
        cdn?.close(),
        site?.close(),
        xiaohongshu?.close(),
        threads?.close(),
        receiver?.close(),
      ]);
      rmSync(tmp, { recursive: true, force: true });
    });

    it("refuses a request without a key with 401 problem+json", async () => {
      const response = await fetch(`${service.url}/api/v1/usage`);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect((await response.json()).code).toBe("missing_api_key");
    });

    it("answers a request the Fetch API cannot represent with 400 or 405 problem+json, and lives on", async () => {
      for (const { name, text, status } of malformedRequests) {
        const answer = await rawRequest(service.url, text);
        expect(answer.status, name).toBe(status);
        expect(answer.head.toLowerCase(), name).toContain("content-type: application/problem+json");
        if (status === 405) expect(answer.head.toLowerCase(), name).toMatch(/\r\nallow: get/);
      }
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    });

    it("counts requests and says so in the rate-limit headers", async () => {
      const first = await get("/api/v1/usage");
      const second = await get("/api/v1/usage");
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-limit")).toBe("100000");
      expect(first.headers.get("x-ratelimit-tier")).toBe("GOLD");
      expect(Number(first.headers.get("x-ratelimit-remaining")) - Number(second.headers.get("x-ratelimit-remaining")))
        .toBe(1);
      expect((await second.json()).tier).toBe("GOLD");
    });

    it("limits sign-in guesses per client, the one a trusted proxy names in X-Forwarded-For", async () => {
      const signIn = async (forwardedFor: string) => {
        const form = await fetch(`${service.url}/sign-in`);
        const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
        const cookie = form.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
        const body = new URLSearchParams({ csrf, email: "contract@example.com", password: "not the password" });
        const headers = { cookie, "x-forwarded-for": `6.6.6.6, ${forwardedFor}`, "sec-fetch-site": "same-origin" };
        return (await fetch(`${service.url}/sign-in`, { method: "POST", headers, body, redirect: "manual" })).status;
      };
      const guesses = [];
      for (let i = 0; i < 6; i++) guesses.push(await signIn("198.51.100.1"));
      expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
      // The proxy's own address is the peer of both; only the hop it appended tells them apart.
      expect(await signIn("198.51.100.2")).toBe(401);
    });

    describe("tweet", () => {
      it("returns the full record of a video post from either domain", async () => {
        for (
          const url of [
            "https://x.com/NASA/status/1491475671058681863",
            "https://mobile.twitter.com/NASA/statuses/1491475671058681863/video/1?s=20",
          ]
        ) {
          const response = await get(`/api/v1/tweet?url=${encodeURIComponent(url)}`);
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toMatch(/^application\/json/);
          expect(response.headers.get("x-ratelimit-tier")).toBe("GOLD");
          const tweet = await response.json();
          expect(tweet).toMatchObject({
            id: "1491475671058681863",
            authorName: "NASA",
            authorScreenName: "NASA",
            createdAt: "2022-02-09T18:14:44.000Z",
            durationSec: 205,
            width: 1280,
            height: 720,
            imageUrls: [],
            isAnimatedGif: false,
          });
          expect(tweet.videoVariants.map((v: { qualityLabel: string; bitrate: number }) => [v.qualityLabel, v.bitrate]))
            .toEqual([
              ["720p", 2176000],
              ["360p", 832000],
              ["270p", 288000],
            ]);
        }
        // The second call came from the cache.
        expect(x.calls("/tweet-result")).toBe(1);
      });

      it("answers 404 for a deleted post and 400 for a link that is not a post", async () => {
        const deleted = await get(
          `/api/v1/tweet?url=${encodeURIComponent(`https://x.com/a/status/${fakeTweetIds.deleted}`)}`,
        );
        expect(deleted.status).toBe(404);
        expect(deleted.headers.get("content-type")).toBe("application/problem+json");
        const wrong = await get(`/api/v1/tweet?url=${encodeURIComponent("https://example.com/a/status/1")}`);
        expect(wrong.status).toBe(400);
        expect((await wrong.json()).code).toBe("invalid_url");
      });

      it("answers 502 when X fails", async () => {
        x.setMode("syndication", { kind: "status", status: 503 });
        try {
          const response = await get(`/api/v1/tweet?url=${encodeURIComponent("https://x.com/jack/status/20")}`);
          expect(response.status).toBe(502);
          expect((await response.json()).code).toBe("upstream_failed");
        } finally {
          x.setMode("syndication", { kind: "normal" });
        }
      });
    });

    describe("download, direct mode", () => {
      const media = (path: string) => `https://video.twimg.com${path}`;

      it("relays the bytes with our file name, the upstream length and the rate-limit headers", async () => {
        const size = 3 * 1024 * 1024 + 17;
        const response = await get(
          `/api/v1/download?url=${encodeURIComponent(media(`/file/${size}/clip.mp4`))}&filename=${
            encodeURIComponent("My clip/é.mp4")
          }`,
        );
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("video/mp4");
        expect(response.headers.get("content-length")).toBe(String(size));
        expect(response.headers.get("content-disposition")).toMatch(
          /^attachment; filename="[^"/]+\.mp4"; filename\*=UTF-8''[^/]+\.mp4$/,
        );
        expect(response.headers.get("x-ratelimit-tier")).toBe("GOLD");
        const bytes = new Uint8Array(await response.arrayBuffer());
        const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
        expect(digest).toBe(fakeSha256(0, size));
      });

      it("relays a body the media host sends in chunks, without a length, in full; cuts one whose host hangs up before its length", async () => {
        const size = 1024 * 1024 + 3;
        const chunked = await get(
          `/api/v1/download?url=${encodeURIComponent(media(`/file/${size}/clip.mp4?chunked=1`))}`,
        );
        expect(chunked.status).toBe(200);
        expect(chunked.headers.get("content-length")).toBeNull();
        const digest = Buffer.from(await crypto.subtle.digest("SHA-256", await chunked.arrayBuffer())).toString("hex");
        expect(digest).toBe(fakeSha256(0, size));

        const cut = await get(
          `/api/v1/download?url=${encodeURIComponent(media("/reset/65536/file/1048576/clip.mp4"))}`,
        );
        expect(cut.status).toBe(200);
        expect(cut.headers.get("content-length")).toBe("1048576");
        await expect(cut.arrayBuffer()).rejects.toThrow();
      });

      it("passes Range through and answers HEAD", async () => {
        const url = `/api/v1/download?url=${encodeURIComponent(media("/file/100000/a.mp4"))}`;
        const part = await get(url, { headers: { range: "bytes=1000-1999" } });
        expect(part.status).toBe(206);
        expect(part.headers.get("content-range")).toBe("bytes 1000-1999/100000");
        const digest = Buffer.from(await crypto.subtle.digest("SHA-256", await part.arrayBuffer())).toString("hex");
        expect(digest).toBe(fakeSha256(1000, 2000));
        const head = await get(url, { method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.headers.get("content-length")).toBe("100000");
      });

      it("refuses a link of another site with 403 host_not_allowed (post: 400 unsupported_platform), and X's media host in another form too", async () => {
        const link = "https://example.com/x.mp4";
        const response = await get(`/api/v1/download?url=${encodeURIComponent(link)}`);
        expect(response.status).toBe(403);
        const problem = await response.json();
        expect(problem.code).toBe("host_not_allowed");
        expect(problem.detail).toContain("example.com is neither a supported platform nor one of X's media hosts");
        expect(problem.detail).toContain("video.twimg.com");
        // The detail names the platforms as post's refusal of the same link does.
        const posted = await (await get(`/api/v1/post?url=${encodeURIComponent(link)}`)).json();
        expect(posted.code).toBe("unsupported_platform");
        expect(problem.detail).toContain(posted.detail.slice(posted.detail.indexOf("Supported:")));
        expect(response.headers.get("x-ratelimit-tier")).toBe("GOLD");
        const ported = await get(`/api/v1/download?url=${encodeURIComponent("https://video.twimg.com:8443/file.mp4")}`);
        expect(ported.status).toBe(403);
        expect((await ported.json()).code).toBe("host_not_allowed");
      });

      it("cancels the upstream request when the client goes away", async () => {
        const before = cdn.requests.length;
        const controller = new AbortController();
        const response = await get(`/api/v1/download?url=${encodeURIComponent(media("/file/1073741824/big.mp4"))}`, {
          signal: controller.signal,
        });
        const reader = response.body!.getReader();
        await reader.read();
        controller.abort();
        const upstream = cdn.requests[before]!;
        expect(await upstream.outcome).toBe("closed");
      });
    });

    describe("post", () => {
      const post = (url: string) => get(`/api/v1/post?url=${encodeURIComponent(url)}`);

      it("describes a page through yt-dlp as a platform-independent record", async () => {
        const response = await post(site.pages.progressive);
        expect(response.status).toBe(200);
        const record = await response.json();
        expect(record).toMatchObject({
          platform: "OTHER",
          id: "progressive-1",
          url: site.pages.progressive,
          needsServerProcessing: true,
          imageUrls: [],
        });
        expect(record.text).toBe("Progressive test clip (1)");
        expect(record.videoVariants.length).toBeGreaterThan(0);
        for (const variant of record.videoVariants) {
          expect(variant).toEqual({
            qualityLabel: expect.any(String),
            formatId: expect.any(String),
            contentType: expect.any(String),
            downloadUrl: expect.stringContaining("/api/v1/download?"),
          });
        }
      });

      it("describes an X post through the tweet extractor", async () => {
        const response = await post("https://twitter.com/NASA/status/1491475671058681863");
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({
          platform: "X",
          id: "1491475671058681863",
          url: "https://x.com/NASA/status/1491475671058681863",
          authorName: "NASA",
          durationSec: 205,
          needsServerProcessing: false,
          videoVariants: [
            { qualityLabel: "720p", formatId: "http-2176", contentType: "video/mp4" },
            { qualityLabel: "360p", formatId: "http-832", contentType: "video/mp4" },
            { qualityLabel: "270p", formatId: "http-288", contentType: "video/mp4" },
          ],
        });
      });

      it("answers 400 for an unsupported platform, a page without media; 404 for a missing page", async () => {
        const other = await post("https://example.com/watch?v=1");
        expect(other.status).toBe(400);
        const problem = await other.json();
        expect(problem.code).toBe("unsupported_platform");
        expect(problem.detail).toContain("YouTube");
        expect((await post(site.pages.noMedia)).status).toBe(400);
        const missing = await post(site.pages.missing);
        expect(missing.status).toBe(404);
        expect((await missing.json()).code).toBe("not_found");
      });
    });

    describe("jobs", () => {
      const json = { "content-type": "application/json" };
      it(
        "runs a job of a page and a Xiaohongshu note on the queue, signs its end to a webhook, and streams its archive",
        {
          timeout: scaled(180_000),
        },
        async () => {
          const registered = await get("/api/v1/webhooks", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ url: receiver.url, events: ["job.completed"] }),
          });
          expect(registered.status).toBe(201);
          const hook = (await registered.json()) as { id: string; secret: string };
          const note = `https://www.xiaohongshu.com/explore/${videoNote.id}?xsec_token=${
            encodeURIComponent(videoNote.token)
          }`;
          const urls = [site.pages.progressive, note];
          const created = await get("/api/v1/jobs", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ urls, files: true, webhook: hook.id }),
          });
          expect(created.status).toBe(202);
          const location = created.headers.get("location")!;
          const job = await until("the job to finish", async () => {
            const now = (await (await get(location)).json()) as { id: string; status: string; archiveUrl: string };
            return now.status === "completed" ? now : undefined;
          }, 150_000);

          // The archive: by the signed link alone, whole for unzip, each item's file and the records.
          const archive = await fetch(job.archiveUrl);
          expect(archive.status).toBe(200);
          expect(archive.headers.get("content-type")).toBe("application/zip");
          const zip = join(tmp, `job-${runtime.name}.zip`);
          writeFileSync(zip, new Uint8Array(await archive.arrayBuffer()));
          expect(execFileSync("unzip", ["-t", zip], { encoding: "utf8" })).toMatch(/No errors detected/);
          const names = execFileSync("unzip", ["-Z1", zip], { encoding: "utf8" }).trim().split("\n");
          expect(names).toEqual([
            expect.stringMatching(/^0001-.*\.mp4$/),
            expect.stringMatching(/^0002-.*\.mp4$/),
            "records.json",
          ]);
          const relayed = execFileSync("unzip", ["-p", zip, names[1]!], { maxBuffer: 64 * 2 ** 20 });
          expect(relayed.equals(xiaohongshu.video("v1080.mp4"))).toBe(true);
          rmSync(zip);

          // The job's end, signed as Standard Webhooks says, with its counts.
          const ended = await until(
            "the job's end delivered",
            () => receiver.events("job.completed").find((each) => JSON.parse(each.body).data.id === job.id),
          );
          const verified = new Webhook(hook.secret).verify(ended.body, ended.headers) as { data: { counts: object } };
          expect(verified.data.counts).toEqual({ total: 2, done: 2, failed: 0, linksRead: 2 });
        },
      );
    });

    describe("download, page mode", () => {
      const download = (url: string, query = "", init?: RequestInit) =>
        get(`/api/v1/download?url=${encodeURIComponent(url)}${query}`, init);

      it("remuxes a progressive page to MP4 that ffprobe reads in full, and leaves nothing on disk", async () => {
        const before = snapshotFiles([tmp, process.cwd()]);
        const response = await download(site.pages.progressive);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("video/mp4");
        expect(response.headers.get("content-disposition")).toBe(
          `attachment; filename="other_progressive-1.mp4"; filename*=UTF-8''other_progressive-1.mp4`,
        );
        expect(response.headers.get("x-ratelimit-tier")).toBe("GOLD");
        const media = await probeMedia(new Uint8Array(await response.arrayBuffer()));
        expect(media.streams.sort()).toEqual(["aac", "h264"]);
        expect(media.duration).toBeCloseTo(clipDurationSec, 0);
        expect(snapshotFiles([tmp, process.cwd()])).toEqual(before);
      });

      it("writes the duration the page gives into the MP4's header, where players look before any fragment", async () => {
        const response = await download(site.pages.jsonLd);
        expect(response.status).toBe(200);
        // The page says the file's size: an estimate for progress bars, with no Content-Length.
        expect(response.headers.get("estimated-content-length")).toBe(String(site.mp4Bytes));
        expect(response.headers.get("content-length")).toBeNull();
        const bytes = new Uint8Array(await response.arrayBuffer());
        expect((await probeMedia(initSegment(bytes))).duration).toBeCloseTo(clipDurationSec, 2);
        expect((await probeMedia(bytes)).streams.sort()).toEqual(["aac", "h264"]);
      });

      it("merges separate video and audio, and remuxes HLS of MPEG-TS", async () => {
        for (const page of [site.pages.split, site.pages.hls]) {
          const response = await download(page, "&filename=clip");
          expect(response.status).toBe(200);
          expect(response.headers.get("content-disposition")).toContain('filename="clip.mp4"');
          const media = await probeMedia(new Uint8Array(await response.arrayBuffer()));
          expect(media.streams.sort()).toEqual(["aac", "h264"]);
          expect(media.duration).toBeCloseTo(clipDurationSec, 0);
        }
      });

      it("embeds the subtitles=en track as a mov_text stream, and sends the second video for index=2", async () => {
        const subtitled = await download(site.pages.subtitled, "&subtitles=en");
        expect(subtitled.status).toBe(200);
        expect((await probeMedia(new Uint8Array(await subtitled.arrayBuffer()))).streams.sort()).toEqual([
          "aac",
          "h264",
          "mov_text",
        ]);
        const second = await download(site.pages.twoVideos, "&index=2");
        expect(second.status).toBe(200);
        expect((await probeMedia(new Uint8Array(await second.arrayBuffer()))).duration).toBeCloseTo(
          shortClipDurationSec,
          0,
        );
      });

      it("extracts MP3 at 320 kbps with audio=mp3", async () => {
        const response = await download(site.pages.progressive, "&audio=mp3");
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("audio/mpeg");
        expect(response.headers.get("content-disposition")).toContain('filename="other_progressive-1.mp3"');
        const media = await probeMedia(new Uint8Array(await response.arrayBuffer()));
        expect(media.streams).toEqual(["mp3"]);
        expect(media.bitRates).toEqual([320000]);
      });

      it("uses the format chosen from the post record", async () => {
        const record = await (await get(`/api/v1/post?url=${encodeURIComponent(site.pages.split)}`)).json();
        const formatId: string = record.videoVariants[0].formatId;
        const response = await download(site.pages.split, `&format=${encodeURIComponent(formatId)}`);
        expect(response.status).toBe(200);
        expect((await probeMedia(new Uint8Array(await response.arrayBuffer()))).streams.sort()).toEqual([
          "aac",
          "h264",
        ]);
        for (const format of ["nosuchformat", "b%5Bfoo"]) {
          const wrong = await download(site.pages.progressive, `&format=${format}`);
          expect(wrong.status).toBe(400);
          const problem = await wrong.json();
          expect(problem.code).toBe("format_not_available");
          // Our words, not yt-dlp's.
          expect(problem.detail).not.toMatch(/\(|\^|ERROR|yt-dlp/);
        }
      });

      it("answers problem+json before the first byte: bad audio 400, gone media 404", async () => {
        const audio = await download(site.pages.progressive, "&audio=wav");
        expect(audio.status).toBe(400);
        expect((await audio.json()).detail).toContain("mp3");
        for (
          const bad of ["&format=b%00", "&format=b%0a", `&format=${"b".repeat(201)}`, `&filename=${"b".repeat(256)}`]
        ) {
          const refused = await download(site.pages.progressive, bad);
          expect(refused.status, bad).toBe(400);
          expect((await refused.json()).code, bad).toBe("invalid_parameter");
        }
        const gone = await download(site.pages.goneMedia);
        expect(gone.status).toBe(404);
        expect(gone.headers.get("content-type")).toBe("application/problem+json");
      });

      it("refuses with 403 to point ffmpeg at a private address a page names", async () => {
        const response = await download(site.pages.privateMedia);
        expect(response.status).toBe(403);
        const problem = await response.json();
        expect(problem.code).toBe("host_not_allowed");
        expect(problem.detail).toContain("127.0.0.2");
      });

      it("aborts the body when the source breaks off after the first byte", async () => {
        const response = await download(site.pages.truncatedMedia);
        expect(response.status).toBe(200);
        await expect(response.arrayBuffer()).rejects.toThrow();
      });

      it("ends yt-dlp and ffmpeg within a second when the client goes away", async () => {
        const controller = new AbortController();
        const response = await download(site.pages.stalledMedia, "", { signal: controller.signal });
        expect(response.status).toBe(200);
        await response.body!.getReader().read();
        expect(runningTools(site.host).length).toBeGreaterThan(0);
        controller.abort();
        expect(await toolsLeft(site.host, 1500)).toEqual([]);
      });

      it("caps concurrent page-mode downloads per key with 429 too_many_downloads", async () => {
        // A fresh FREE key of the same service: the cap and the counts are the key's own, so the
        // service needs no start of its own for it.
        const freeKey = await runAdmin(["keys", "create", "--email", "contract@example.com", "--tier", "FREE"], {
          DATA_DIR: instance.dataDir,
        });
        expect(freeKey).toMatchObject({ code: 0, stderr: "" });
        const free = { get: keyedGet(service.url, freeKey.stdout.trim()) };
        const controller = new AbortController();
        try {
          const first = await free.get(`/api/v1/download?url=${encodeURIComponent(site.pages.stalledMedia)}`, {
            signal: controller.signal,
          });
          expect(first.status).toBe(200);
          const second = await free.get(`/api/v1/download?url=${encodeURIComponent(site.pages.progressive)}`);
          expect(second.status).toBe(429);
          expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
          expect((await second.json()).code).toBe("too_many_downloads");
          // A request refused with 429 is not counted.
          expect(first.headers.get("x-ratelimit-remaining")).toBe("99");
          expect(second.headers.get("x-ratelimit-remaining")).toBe("99");
          expect((await free.get("/api/v1/usage")).headers.get("x-ratelimit-remaining")).toBe("98");
        } finally {
          controller.abort();
          // The service goes on serving the tests after this one: let the stalled download's tools end first.
          await settled(() => runningTools(site.host).length === 0, 30_000);
        }
      });

      it("gives an X photo post's first image at full size", async () => {
        const recorded = JSON.parse(
          readFileSync(join(fixturesDir, "syndication/photo_single_obama_266031293945503744.json"), "utf8"),
        );
        const id = "266031293945503999";
        recorded.id_str = id;
        for (const media of recorded.mediaDetails) {
          media.media_url_https = "https://pbs.twimg.com/file/5000/photo.jpg?type=image/jpeg";
        }
        x.setMode("syndication", { kind: "json", body: recorded });
        try {
          const before = cdn.requests.length;
          const response = await download(`https://x.com/BarackObama/status/${id}`);
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toBe("image/jpeg");
          expect(response.headers.get("content-disposition")).toContain(`filename="x_${id}.jpg"`);
          expect(Buffer.from(await crypto.subtle.digest("SHA-256", await response.arrayBuffer())).toString("hex")).toBe(
            fakeSha256(0, 5000),
          );
          expect(cdn.requests[before]!.path).toContain("name=orig");
        } finally {
          x.setMode("syndication", { kind: "normal" });
        }
      });

      it("lists an X post's photo, video and photo, and relays the one index names", async () => {
        const link = `https://x.com/someone/status/${fakeTweetIds.mixedMedia}`;
        const types = (record: { media: { type: string }[] }) => record.media.map((item) => item.type);
        expect(types(await (await get(`/api/v1/tweet?url=${encodeURIComponent(link)}`)).json())).toEqual([
          "photo",
          "video",
          "photo",
        ]);
        expect(types(await (await get(`/api/v1/post?url=${encodeURIComponent(link)}`)).json())).toEqual([
          "photo",
          "video",
          "photo",
        ]);
        for (const index of [2, 3]) {
          const response = await download(link, `&index=${index}`);
          expect(response.status).toBe(200);
          const { size } = mixedMediaFiles[index - 1]!;
          expect(response.headers.get("content-length")).toBe(String(size));
          expect(Buffer.from(await crypto.subtle.digest("SHA-256", await response.arrayBuffer())).toString("hex")).toBe(
            fakeSha256(0, size),
          );
        }
        const past = await download(link, "&index=4");
        expect(past.status).toBe(400);
        expect((await past.json()).detail).toContain("3 items");
      });

      it("reads a Xiaohongshu note from its page through a short link, relays a photo it names, and a video note's best file", async () => {
        const short = `https://xhslink.com/a/${shortCode}`;
        const record = await (await get(`/api/v1/post?url=${encodeURIComponent(short)}`)).json();
        expect([record.platform, record.id, record.media.length]).toEqual(["XIAOHONGSHU", photoNote.id, 3]);
        const photo = await download(short, "&index=2");
        expect(photo.status).toBe(200);
        expect(Buffer.from(await photo.arrayBuffer()).equals(photoBytes(2))).toBe(true);
        const video = await download(
          `https://www.xiaohongshu.com/explore/${videoNote.id}?xsec_token=${encodeURIComponent(videoNote.token)}`,
        );
        expect(video.status).toBe(200);
        expect(Buffer.from(await video.arrayBuffer()).equals(xiaohongshu.video("v1080.mp4"))).toBe(true);
      });

      it("reads a Threads carousel through the web client's query (a POST with a body), and relays its video", async () => {
        const link = `https://www.threads.com/@${carouselPost.user}/post/${carouselPost.code}`;
        const record = await (await get(`/api/v1/post?url=${encodeURIComponent(link)}`)).json();
        expect([record.platform, record.id, record.media.map((item: { type: string }) => item.type)]).toEqual([
          "THREADS",
          carouselPost.code,
          ["photo", "video", "photo"],
        ]);
        const video = await download(link, "&index=2");
        expect(video.status).toBe(200);
        expect(Buffer.from(await video.arrayBuffer()).equals(threadsFiles.get("/v/slide-2.mp4")!)).toBe(true);
      });

      it("relays an X post's best video, and turns it into MP3 with audio=mp3", async () => {
        const recorded = JSON.parse(
          readFileSync(join(fixturesDir, "syndication/video_nasa_1491475671058681863.json"), "utf8"),
        );
        // A post id of its own, so that the recorded NASA post cached by other tests is not used.
        const id = "1491475671058681999";
        recorded.id_str = id;
        for (const variant of recorded.mediaDetails[0].video_info.variants) {
          variant.url = "https://ton.twimg.com/media/clip.mp4";
        }
        x.setMode("syndication", { kind: "json", body: recorded });
        try {
          const link = `https://x.com/NASA/status/${id}`;
          const video = await download(link);
          expect(video.status).toBe(200);
          expect(video.headers.get("content-disposition")).toContain(`filename="x_${id}.mp4"`);
          const bytes = new Uint8Array(await video.arrayBuffer());
          expect(bytes.byteLength).toBe(Number(video.headers.get("content-length")));
          expect((await probeMedia(bytes)).streams.sort()).toEqual(["aac", "h264"]);
          const audio = await download(link, "&audio=mp3");
          expect(audio.status).toBe(200);
          expect((await probeMedia(new Uint8Array(await audio.arrayBuffer()))).bitRates).toEqual([320000]);
          expect((await download(link, "&format=1080p")).status).toBe(400);
        } finally {
          x.setMode("syndication", { kind: "normal" });
        }
      });
    });

    // The tests below end the service they run on. Each start costs several CPU seconds under each
    // of five runtimes, so they share: each instance of its own serves two tests, in order, the last
    // of which ends it, and the suite's last test stops the shared instance.

    describe("an instance without the idle cut (DOWNLOAD_IDLE_TIMEOUT_S=0), ended by SIGKILL", () => {
      const media = (path: string) => `https://video.twimg.com${path}`;
      let unwatched: Instance;
      // The extraction host stays on: the SIGKILL test watches it end.
      beforeAll(async () => {
        unwatched = await startInstance({ DOWNLOAD_IDLE_TIMEOUT_S: "0" });
      });
      afterAll(async () => {
        await unwatched?.dispose();
      });

      it("with DOWNLOAD_IDLE_TIMEOUT_S=0 relays the same bytes and length, and a client that goes away still closes the upstream", async () => {
        const size = 2 * 1024 * 1024 + 5;
        const response = await unwatched.get(
          `/api/v1/download?url=${encodeURIComponent(media(`/file/${size}/clip.mp4`))}`,
        );
        expect(response.headers.get("content-length")).toBe(String(size));
        const digest = Buffer.from(await crypto.subtle.digest("SHA-256", await response.arrayBuffer())).toString(
          "hex",
        );
        expect(digest).toBe(fakeSha256(0, size));

        const before = cdn.requests.length;
        const controller = new AbortController();
        const big = await unwatched.get(
          `/api/v1/download?url=${encodeURIComponent(media("/file/1073741824/big.mp4"))}`,
          { signal: controller.signal },
        );
        const reader = big.body!.getReader();
        await reader.read();
        controller.abort();
        expect(await cdn.requests[before]!.outcome).toBe("closed");
      });

      // The last test of this instance: it kills it.
      it("leaves no yt-dlp, ffmpeg or extraction host running a few seconds after the service is killed with SIGKILL", async () => {
        // The extraction host says its pid on /readyz once it is ready.
        const hostPid = await until(
          "the extraction host's pid on /readyz",
          async () => {
            const detail: string = (await (await unwatched.get("/readyz")).json()).checks["extraction-host"].detail;
            return Number(/^in use: pid (\d+)/.exec(detail)?.[1]) || undefined;
          },
          60_000,
          100,
        );
        const controller = new AbortController();
        const response = await unwatched.get(`/api/v1/download?url=${encodeURIComponent(site.pages.stalledMedia)}`, {
          signal: controller.signal,
        });
        expect(response.status).toBe(200);
        await response.body!.getReader().read();
        expect(runningTools(site.host).some((line) => line.includes("ffmpeg"))).toBe(true);
        const exited = once(unwatched.service.child, "exit");
        unwatched.service.child.kill("SIGKILL");
        await exited;
        const hostRuns = () =>
          existsSync(`/proc/${hostPid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${hostPid}/stat`, "utf8"));
        await holdsWithin(() => runningTools(site.host).length === 0 && !hostRuns(), 4_000, 100);
        expect(runningTools(site.host)).toEqual([]);
        expect(hostRuns()).toBe(false);
        controller.abort();
      });
    });

    describe("an instance with a 1 s idle cut and a 300 ms grace period, ended by SIGTERM", () => {
      const media = (path: string) => `https://video.twimg.com${path}`;
      let quick: Instance;
      beforeAll(async () => {
        quick = await startInstance({ DOWNLOAD_IDLE_TIMEOUT_S: "1", SHUTDOWN_GRACE_MS: "300", ...relayOnly });
      });
      afterAll(async () => {
        await quick?.dispose();
      });

      it("cuts a relay whose media host stalls for DOWNLOAD_IDLE_TIMEOUT_S, as a broken transfer, and closes the upstream", async () => {
        const before = cdn.requests.length;
        const response = await quick.get(
          `/api/v1/download?url=${encodeURIComponent(media("/stall/65536/file/1048576"))}`,
        );
        expect(response.status).toBe(200);
        expect(response.headers.get("content-length")).toBe("1048576");
        const started = Date.now();
        await expect(response.arrayBuffer()).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(await cdn.requests[before]!.outcome).toBe("closed");
      });

      // The last test of this instance: it stops it. The idle cut cannot end its download first: the
      // media host never pauses, and the time the client reads nothing does not count.
      it("cuts a download still running when the grace period ends, cancelling its upstream, and exits 0", async () => {
        const before = cdn.requests.length;
        const response = await quick.get(
          `/api/v1/download?url=${encodeURIComponent(media("/file/1073741824/huge.mp4"))}`,
        );
        const reader = response.body!.getReader();
        await reader.read();
        const signalled = Date.now();
        const exitCode = quick.service.stop();
        const drained = (async () => {
          while (!(await reader.read()).done);
        })();
        await expect(drained).rejects.toThrow();
        expect(await cdn.requests[before]!.outcome).toBe("closed");
        expect(await exitCode).toBe(0);
        expect(Date.now() - signalled).toBeLessThan(10_000);
        expect(quick.service.output.some((line) => line.includes("grace period over"))).toBe(true);
      });
    });

    // The suite's last test: it stops the shared instance, whose grace period (20 s) is set for it.
    describe("stopping on SIGTERM", () => {
      const media = (path: string) => `/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`;

      it("refuses new connections, lets a download in flight finish within the grace period, and exits 0", async () => {
        // Large enough that, unread, it cannot all sit in socket buffers: the relay is mid-file.
        const size = 64 * 1024 * 1024;
        const before = cdn.requests.length;
        const response = await get(media(`/file/${size}/long.mp4`));
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        const hash = createHash("sha256");
        let received = 0;
        const first = await reader.read();
        hash.update(first.value!);
        received += first.value!.byteLength;
        const upstream = cdn.requests[before]!;
        expect(await settledWithin(upstream.outcome, 200)).toBe(false);

        const exitCode = service.stop();
        expect(await connectionRefused(service.url)).toBe(true);
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          hash.update(chunk.value);
          received += chunk.value.byteLength;
        }
        expect(received).toBe(size);
        expect(hash.digest("hex")).toBe(fakeSha256(0, size));
        expect(await upstream.outcome).toBe("finished");
        expect(await exitCode).toBe(0);
        expect(service.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
      });
    });
  });
}

/** Whether the promise settles within `ms`. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);
}

/** Whether a fresh TCP connection to the service's port is refused, trying for up to 5 s (scaled). */
function connectionRefused(serviceUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(serviceUrl);
  const refused = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
    });
  return settled(refused, 5_000);
}
