// Start-up and stopping of the service, with a runtime whose server the test controls.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { nodeCapabilities } from "../src/runtime/node/capabilities.ts";
import { nodeUpstream } from "../src/runtime/node/relay-upstream.ts";
import type { RunningServer } from "../src/runtime/serve.ts";
import { startService } from "../src/service.ts";
import type { App } from "../src/app.ts";
import { createTestDatabase } from "./helpers/stores.ts";
import { scaled } from "./helpers/slowness.ts";

describe("startService().close()", () => {
  it("logs a server whose close() fails, counts it as not finished and cuts what it left, at once", async () => {
    const database = await createTestDatabase();
    const lines: Record<string, unknown>[] = [];
    let cuts = 0;
    const server: RunningServer = {
      address: "http://fake",
      close: () => Promise.reject(new Error("close failed")),
      cut: () => void (cuts += 1),
    };
    try {
      const config = parseConfig({
        DATABASE_URL: database.url,
        SHUTDOWN_GRACE_MS: "20000",
        YTDLP_PATH: "/bin/true",
        FFMPEG_PATH: "/bin/true",
      });
      const service = await startService(config, {
        name: "node",
        serve: async () => server,
        upstream: nodeUpstream,
        ...nodeCapabilities,
      }, createLogger("debug", (line) => lines.push(JSON.parse(line))));
      const started = Date.now();
      await service.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(cuts).toBe(1);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "error", msg: "a server did not close cleanly", error: "close failed" }),
      );
    } finally {
      await database.drop();
    }
  });
});

describe("startService()", () => {
  it("listens before the media tools' probe is done, and logs a tool that cannot be run once it is", async () => {
    const database = await createTestDatabase();
    const lines: Record<string, unknown>[] = [];
    const server: RunningServer = { address: "http://fake", close: async () => {}, cut: () => {} };
    try {
      // Each tool's probe is held until the service has started: the service must not wait for it to listen.
      const config = parseConfig({
        DATABASE_URL: database.url,
        YTDLP_PATH: "/nonexistent/yt-dlp",
        FFMPEG_PATH: "/nonexistent/ffmpeg",
      });
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let probesDone = 0;
      const slowRuns = {
        async run(path: string, args: readonly string[], timeoutMs: number) {
          await held;
          const answer = await nodeCapabilities.toolRuns.run(path, args, timeoutMs);
          probesDone += 1;
          return answer;
        },
      };
      const service = await startService(config, {
        name: "node",
        serve: async () => server,
        upstream: nodeUpstream,
        ...nodeCapabilities,
        toolRuns: slowRuns,
      }, createLogger("debug", (line) => lines.push(JSON.parse(line))));
      // Started, and listening, while every probe is still held.
      expect(probesDone).toBe(0);
      release();
      expect(lines.some((line) => line.msg === "a media tool cannot be run: page mode answers 503 tool_missing")).toBe(
        false,
      );
      await expect.poll(
        () =>
          lines.filter((line) => line.msg === "a media tool cannot be run: page mode answers 503 tool_missing").map((
            line,
          ) => line.tool),
        { timeout: scaled(5_000) },
      ).toEqual(["yt-dlp", "ffmpeg"]);
      await service.close();
    } finally {
      await database.drop();
    }
  });
});

describe("startService().close() while it drains", () => {
  it("fails /readyz from the moment the stop begins, while the requests in flight finish", async () => {
    const database = await createTestDatabase();
    let app: App | undefined;
    let drained = () => {};
    const server: RunningServer = {
      address: "http://fake",
      // The responses in flight finish when the test says so.
      close: () => new Promise<void>((resolve) => (drained = resolve)),
      cut: () => {},
    };
    try {
      const config = parseConfig({ DATABASE_URL: database.url, YTDLP_PATH: "/bin/true", FFMPEG_PATH: "/bin/true" });
      const service = await startService(config, {
        name: "node",
        serve: async (served) => {
          app = served as App;
          return server;
        },
        upstream: nodeUpstream,
        ...nodeCapabilities,
      }, createLogger("error"));
      const accepting = async () => {
        const answer = await app!.fetch(new Request("http://fake/readyz"));
        return { status: answer.status, accepting: (await answer.json()).checks.accepting };
      };
      expect(await accepting()).toEqual({ status: 200, accepting: { ok: true } });
      const closed = service.close();
      expect(await accepting()).toEqual({
        status: 503,
        accepting: { ok: false, error: "stopping: no new connections, the requests in flight are finishing" },
      });
      drained();
      await closed;
    } finally {
      await database.drop();
    }
  });
});
