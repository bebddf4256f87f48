// The black-box contract: the built service as a process, called over HTTP, with local fake
// upstreams. Each runtime's test file runs it against that runtime's bundle.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeSha256, startFakeCdn, type FakeCdn } from "../fakes/cdn.ts";
import { fakeTweetIds, startFakeXUpstream, type FakeXUpstream } from "../fakes/x-upstream.ts";
import { runAdmin, startService, type RunningService } from "../helpers/service.ts";

export interface RuntimeUnderTest {
  name: string;
  /** Executable and arguments that start the service from the built bundle. */
  command: string[];
}

interface Instance {
  service: RunningService;
  key: string;
  get(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the service if it still runs and removes its data. */
  dispose(): Promise<void>;
}

export function contractSuite(runtime: RuntimeUnderTest): void {
  describe(`the service under ${runtime.name}`, () => {
    let x: FakeXUpstream;
    let cdn: FakeCdn;
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
            X_TIMEOUT_MS: "2000",
            ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin},pbs.twimg.com=${cdn.origin}`,
            ...env,
          },
          runtime.command,
        );
        const adminEnv = { DATA_DIR: dataDir };
        await runAdmin(["users", "create", "--email", "contract@example.com"], adminEnv, "contract password\n");
        const key = (await runAdmin(["keys", "create", "--email", "contract@example.com", "--tier", "GOLD"], adminEnv)).stdout.trim();
        const url = started.url;
        return {
          service: started,
          key,
          get: (path, init = {}) => fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } }),
          dispose,
        };
      } catch (error) {
        await dispose();
        throw error;
      }
    }

    beforeAll(async () => {
      [x, cdn] = await Promise.all([startFakeXUpstream(), startFakeCdn()]);
      instance = await startInstance();
      ({ service, get } = instance);
    });
    afterAll(async () => {
      await instance?.dispose();
      await Promise.all([x?.close(), cdn?.close()]);
    });

    it("refuses a request without a key with 401 problem+json", async () => {
      const response = await fetch(`${service.url}/api/v1/usage`);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect((await response.json()).code).toBe("missing_api_key");
    });

    it("counts requests and says so in the rate-limit headers", async () => {
      const first = await get("/api/v1/usage");
      const second = await get("/api/v1/usage");
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-limit")).toBe("100000");
      expect(first.headers.get("x-ratelimit-tier")).toBe("GOLD");
      expect(Number(first.headers.get("x-ratelimit-remaining")) - Number(second.headers.get("x-ratelimit-remaining"))).toBe(1);
      expect((await second.json()).tier).toBe("GOLD");
    });

    describe("tweet", () => {
      it("returns the full record of a video post from either domain", async () => {
        for (const url of ["https://x.com/NASA/status/1491475671058681863", "https://mobile.twitter.com/NASA/statuses/1491475671058681863/video/1?s=20"]) {
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
          expect(tweet.videoVariants.map((v: { qualityLabel: string; bitrate: number }) => [v.qualityLabel, v.bitrate])).toEqual([
            ["720p", 2176000],
            ["360p", 832000],
            ["270p", 288000],
          ]);
        }
        // The second call came from the cache.
        expect(x.calls("/tweet-result")).toBe(1);
      });

      it("answers 404 for a deleted post and 400 for a link that is not a post", async () => {
        const deleted = await get(`/api/v1/tweet?url=${encodeURIComponent(`https://x.com/a/status/${fakeTweetIds.deleted}`)}`);
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
        const response = await get(`/api/v1/download?url=${encodeURIComponent(media(`/file/${size}/clip.mp4`))}&filename=${encodeURIComponent("My clip/é.mp4")}`);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("video/mp4");
        expect(response.headers.get("content-length")).toBe(String(size));
        expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="[^"/]+\.mp4"; filename\*=UTF-8''[^/]+\.mp4$/);
        expect(response.headers.get("x-ratelimit-tier")).toBe("GOLD");
        const bytes = new Uint8Array(await response.arrayBuffer());
        const digest = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
        expect(digest).toBe(fakeSha256(0, size));
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

      it("refuses other hosts with 403 host_not_allowed", async () => {
        const response = await get(`/api/v1/download?url=${encodeURIComponent("https://example.com/file.mp4")}`);
        expect(response.status).toBe(403);
        expect((await response.json()).code).toBe("host_not_allowed");
        expect(response.headers.get("x-ratelimit-tier")).toBe("GOLD");
      });

      it("cancels the upstream request when the client goes away", async () => {
        const before = cdn.requests.length;
        const controller = new AbortController();
        const response = await get(`/api/v1/download?url=${encodeURIComponent(media("/file/1073741824/big.mp4"))}`, { signal: controller.signal });
        const reader = response.body!.getReader();
        await reader.read();
        controller.abort();
        const upstream = cdn.requests[before]!;
        expect(await upstream.outcome).toBe("closed");
      });
    });

    describe("stopping on SIGTERM", () => {
      const media = (path: string) => `/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`;

      it("refuses new connections, lets a download in flight finish within the grace period, and exits 0", async () => {
        const own = await startInstance({ SHUTDOWN_GRACE_MS: "20000" });
        try {
          // Large enough that, unread, it cannot all sit in socket buffers: the relay is mid-file.
          const size = 64 * 1024 * 1024;
          const before = cdn.requests.length;
          const response = await own.get(media(`/file/${size}/long.mp4`));
          expect(response.status).toBe(200);
          const reader = response.body!.getReader();
          const hash = createHash("sha256");
          let received = 0;
          const first = await reader.read();
          hash.update(first.value!);
          received += first.value!.byteLength;
          const upstream = cdn.requests[before]!;
          expect(await settledWithin(upstream.outcome, 200)).toBe(false);

          const exitCode = own.service.stop();
          expect(await connectionRefused(own.service.url)).toBe(true);
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
            hash.update(chunk.value);
            received += chunk.value.byteLength;
          }
          expect(received).toBe(size);
          expect(hash.digest("hex")).toBe(fakeSha256(0, size));
          expect(await upstream.outcome).toBe("finished");
          expect(await exitCode).toBe(0);
          expect(own.service.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
        } finally {
          await own.dispose();
        }
      });

      it("cuts a download still running when the grace period ends, cancelling its upstream, and exits 0", async () => {
        const own = await startInstance({ SHUTDOWN_GRACE_MS: "300" });
        try {
          const before = cdn.requests.length;
          const response = await own.get(media("/file/1073741824/huge.mp4"));
          const reader = response.body!.getReader();
          await reader.read();
          const signalled = Date.now();
          const exitCode = own.service.stop();
          const drained = (async () => {
            while (!(await reader.read()).done);
          })();
          await expect(drained).rejects.toThrow();
          expect(await cdn.requests[before]!.outcome).toBe("closed");
          expect(await exitCode).toBe(0);
          expect(Date.now() - signalled).toBeLessThan(10_000);
          expect(own.service.output.some((line) => line.includes("grace period over"))).toBe(true);
        } finally {
          await own.dispose();
        }
      });
    });
  });
}

/** Whether the promise settles within `ms`. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

/** Whether a fresh TCP connection to the service's port is refused, trying for up to 5 s. */
async function connectionRefused(serviceUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(serviceUrl);
  for (const until = Date.now() + 5_000; Date.now() < until; ) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.once("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });
    if (outcome === "ECONNREFUSED") return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
