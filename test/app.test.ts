// What the app adds around every request: the request id, one log line, and the readiness probe.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashKey } from "../src/auth/api-key.ts";
import { type Db, StoreUnavailableError } from "../src/store/db.ts";
import { createApp } from "../src/app.ts";
import { parseConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { serveNode } from "../src/runtime/node-server.ts";
import { createAppDeps } from "../src/app-deps.ts";
import { nodeCapabilities } from "../src/runtime/node/capabilities.ts";
import { nodeUpstream } from "../src/runtime/node/relay-upstream.ts";
import { startFakeCdn } from "./fakes/cdn.ts";
import { buildTestApp, makeKey } from "./helpers/app.ts";
import { rawRequest } from "./helpers/raw-http.ts";
import { openTestStore, type TestStore } from "./helpers/stores.ts";
import { until } from "./helpers/until.ts";

describe("the app", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("pglite");
  });
  afterAll(() => store?.close());

  it("echoes a well-formed X-Request-Id and makes one up otherwise", async () => {
    const { get } = buildTestApp(store.db);
    expect(
      (await get("/healthz", undefined, { headers: { "x-request-id": "abc-123.4:5" } })).headers.get("x-request-id"),
    ).toBe("abc-123.4:5");
    const made = (await get("/healthz", undefined, { headers: { "x-request-id": "has spaces<>" } })).headers.get(
      "x-request-id",
    );
    expect(made).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await get("/api/v1/usage")).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers what the server refuses before there is a request as the API would: problem+json with CORS headers and a request id", async () => {
    const { app } = buildTestApp(store.db, { env: { CORS_ORIGIN: "https://caller.example" } });
    const server = await serveNode(app, { port: 0, hostname: "127.0.0.1" });
    try {
      const early = [
        { text: "GET /api/v1/usage HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n", status: 400 },
        {
          text: `GET /api/v1/usage HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\nConnection: close\r\n\r\n`,
          status: 431,
        },
        { text: "TRACE /api/v1/usage HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", status: 405 },
      ];
      for (const { text, status } of early) {
        const answer = await rawRequest(server.address, text);
        expect(answer.status).toBe(status);
        expect(answer.head.toLowerCase()).toContain("content-type: application/problem+json");
        expect(answer.head.toLowerCase()).toContain("access-control-allow-origin: https://caller.example");
        expect(answer.head.toLowerCase()).toContain("access-control-expose-headers:");
        const id = /x-request-id: (\S+)/i.exec(answer.head)?.[1];
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
      }
    } finally {
      await server.close();
    }
  });

  it("answers an owner's page that failed with an HTML page, not problem+json", async () => {
    const down = { ...store.db, query: () => Promise.reject(new StoreUnavailableError("down")) } as Db;
    const { get } = buildTestApp(down);
    const page = await get("/profile/api-keys", undefined, { headers: { cookie: "sid=x" } });
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("retry-after")).toBe("2");
    expect(page.headers.get("content-security-policy")).not.toBeNull();
    expect(await page.text()).toContain("cannot reach its database");
  });

  it("logs how each body ended, with the request id: complete, cut by the client, cut by an error and why", async () => {
    const cdn = await startFakeCdn();
    const key = await makeKey(store.db, "GOLD");
    const { app, logLines } = buildTestApp(store.db, { env: { ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}` } });
    const server = await serveNode(app, { port: 0, hostname: "127.0.0.1" });
    const download = (path: string, id: string, signal?: AbortSignal) =>
      fetch(`${server.address}/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`, {
        headers: { authorization: `Bearer ${key.plain}`, "x-request-id": id },
        signal,
      });
    const ended = (id: string) =>
      until(
        `the body of ${id} to end`,
        () =>
          logLines.map((line) => JSON.parse(line)).find((line) => line.requestId === id && line.msg === "body ended"),
        5_000,
        20,
      );
    try {
      await (await download("/file/1000/whole.mp4", "whole")).arrayBuffer();
      expect(await ended("whole")).toMatchObject({ level: "debug", ended: "complete", route: "/api/v1/download" });

      const broken = await download("/reset/1000/file/100000/broken.mp4", "broken");
      await expect(broken.arrayBuffer()).rejects.toThrow();
      expect(await ended("broken")).toMatchObject({ level: "warn", ended: "cut by error", error: expect.any(String) });

      const controller = new AbortController();
      const big = await download("/file/1073741824/big.mp4", "gone", controller.signal);
      await big.body!.getReader().read();
      controller.abort();
      expect(await ended("gone")).toMatchObject({ level: "info", ended: "cut by client" });
    } finally {
      await server.close();
      await cdn.close();
    }
  });

  it("writes one JSON line per request with id, route, status, duration, bytes and key id, never the key", async () => {
    const key = await makeKey(store.db, "PRO");
    const { get, logLines } = buildTestApp(store.db);
    const usage = await get("/api/v1/usage", key.plain, { headers: { "x-request-id": "req-1" } });
    const usageBytes = (await usage.arrayBuffer()).byteLength;
    await get("/api/v1/usage", undefined, { headers: { "x-request-id": "req-2" } });
    await get("/nothing/here", undefined, { headers: { "x-request-id": "req-3" } });
    const lines = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: "info",
      msg: "request",
      requestId: "req-1",
      method: "GET",
      route: "/api/v1/usage",
      path: "/api/v1/usage",
      status: 200,
      durationMs: expect.any(Number),
      bytes: usageBytes,
      apiKeyId: key.id,
    });
    expect(usageBytes).toBeGreaterThan(50);
    expect(lines[1]).toMatchObject({ requestId: "req-2", route: "/api/v1/usage", status: 401 });
    expect(lines[1]!.apiKeyId).toBeUndefined();
    expect(lines[2]).toMatchObject({ requestId: "req-3", route: "unmatched", path: "/nothing/here", status: 404 });
    const hash = await hashKey(key.plain);
    for (const line of logLines) {
      expect(line).not.toContain(key.plain.slice(4));
      expect(line).not.toContain(hash);
    }
  });

  it("logs nothing below the configured level", async () => {
    const lines: string[] = [];
    const config = parseConfig({ X_GRAPHQL_URL: "off" });
    const app = createApp({
      config,
      db: store.db,
      log: createLogger("warn", (line) => lines.push(line)),
      ...createAppDeps({ config, runtime: { upstream: nodeUpstream, ...nodeCapabilities } }),
    });
    expect((await app.fetch(new Request("http://test.local/healthz"))).status).toBe(200);
    expect(lines).toEqual([]);
  });

  describe("GET /readyz", () => {
    it("is 200 when the store answers", async () => {
      const { get, toolsProbed } = buildTestApp(store.db);
      await toolsProbed;
      const response = await get("/readyz");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.json()).toEqual({
        status: "ready",
        checks: {
          store: { ok: true },
          "yt-dlp": { ok: true },
          "gallery-dl": { ok: true },
          ffmpeg: { ok: true },
          "extraction-host": {
            ok: true,
            detail: "not in use (starting: not started yet): every extraction starts the tool's program",
          },
        },
      });
    });

    it("is 503 when the store fails, naming the failing check", async () => {
      const broken = { ...store.db, query: () => Promise.reject(new Error("connection refused")) } as Db;
      const { get, toolsProbed } = buildTestApp(broken);
      await toolsProbed;
      const response = await get("/readyz");
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: "unavailable",
        checks: {
          store: { ok: false, error: "connection refused" },
          "yt-dlp": { ok: true },
          "gallery-dl": { ok: true },
          ffmpeg: { ok: true },
          "extraction-host": {
            ok: true,
            detail: "not in use (starting: not started yet): every extraction starts the tool's program",
          },
        },
      });
    });

    it("runs the checks it is given besides the store's", async () => {
      const config = parseConfig({ X_GRAPHQL_URL: "off", HEALTH_TIMEOUT_MS: "100" });
      const app = createApp({
        config,
        db: store.db,
        log: createLogger("silent"),
        ...createAppDeps({ config, runtime: { upstream: nodeUpstream, ...nodeCapabilities } }),
        readinessChecks: [
          { name: "yt-dlp", check: async () => {} },
          { name: "ffmpeg", check: () => Promise.reject(new Error("not executable: /opt/ffmpeg")) },
        ],
      });
      const response = await app.fetch(new Request("http://test.local/readyz"));
      expect(response.status).toBe(503);
      expect((await response.json()).checks).toEqual({
        store: { ok: true },
        "yt-dlp": { ok: true },
        ffmpeg: { ok: false, error: "not executable: /opt/ffmpeg" },
      });
    });
  });
});
