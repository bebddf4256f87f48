// Issue 14 item 4: a source that stops sending is cut after DOWNLOAD_IDLE_TIMEOUT_S, so the client
// sees a broken transfer and the upstream connection (and page mode's children) end; and direct
// downloads are capped per key like page mode, with a 429 that is not counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer } from "../../src/runtime/serve.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { toolsLeft } from "../helpers/media.ts";
import { transfer } from "../helpers/transfer.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled, slowness } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

describe("downloads with stalled sources, and the direct-mode cap", () => {
  // Two seconds on a quiet machine: ffmpeg's first output on a busy one may take longer than one.
  const idleSec = Math.ceil(2 * slowness);
  let store: TestStore;
  let cdn: FakeCdn;
  let site: MediaSite;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    [store, cdn, site] = await Promise.all([openTestStore("pglite"), startFakeCdn(), startMediaSite()]);
    const { app } = buildTestApp(store.db, {
      env: {
        EXTRA_PAGE_HOSTS: site.host,
        ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}`,
        DOWNLOAD_IDLE_TIMEOUT_S: String(idleSec),
      },
    });
    server = await serveNode(app, { port: 0, hostname: "127.0.0.1" });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(60_000));
  afterAll(async () => {
    server?.cut();
    await server?.close();
    await Promise.all([store?.close(), cdn?.close(), site?.close()]);
  });

  const downloadUrl = (url: string) => `${server.address}/api/v1/download?url=${encodeURIComponent(url)}`;
  /** The direct-mode slots held now, as /metrics (open to this machine without a token) says. */
  const directDownloadsHeld = async () => {
    const text = await (await fetch(`${server.address}/metrics`)).text();
    return Number(/^media_api_slots_held\{kind="directDownloads"\} (\d+)$/m.exec(text)?.[1]);
  };

  it("cuts a direct download whose CDN sends the head and 64 KB, then nothing", async () => {
    const before = cdn.requests.length;
    const result = await transfer(downloadUrl("https://video.twimg.com/stall/65536/file/1048576"), key);
    expect(result.status).toBe(200);
    expect(result.headers["content-length"]).toBe("1048576");
    expect(result.complete).toBe(false);
    expect(result.body.byteLength).toBe(65536);
    expect(result.seconds).toBeLessThan(10 * idleSec);
    expect(await cdn.requests[before]!.outcome).toBe("closed");
  });

  it("cuts a page-mode download whose source stalls, and its children end", async () => {
    const result = await transfer(downloadUrl(site.pages.stalledMedia), key);
    expect(result.status).toBe(200);
    expect(result.headers["transfer-encoding"]).toBe("chunked");
    expect(result.complete).toBe(false);
    expect(result.seconds).toBeLessThan(15 * idleSec);
    expect(await toolsLeft(site.host, 3000)).toEqual([]);
  });

  it("caps direct downloads per key (FREE 2) with 429 too_many_downloads, not counted, and frees the slot at the end", async () => {
    const free = (await makeKey(store.db, "FREE")).plain;
    const held = [new AbortController(), new AbortController()];
    const get = (url: string, signal?: AbortSignal) =>
      fetch(downloadUrl(url), { headers: { authorization: `Bearer ${free}` }, signal });
    const stalled = "https://video.twimg.com/delay/5000/file/1000";
    const before = cdn.requests.length;
    const pending = held.map((controller) => get(stalled, controller.signal).catch(() => null));
    await until("the two stalled downloads at the CDN", () => cdn.requests.length >= before + 2);
    const refused = await get("https://video.twimg.com/file/1000");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await refused.json()).code).toBe("too_many_downloads");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("98");
    for (const controller of held) controller.abort();
    await Promise.all(pending);
    // The server hears of the aborts on its own time, later on a busy machine.
    await until("the two slots given back", async () => (await directDownloadsHeld()) === 0);
    const again = await get("https://video.twimg.com/file/1000");
    expect(again.status).toBe(200);
    expect((await again.arrayBuffer()).byteLength).toBe(1000);
    // Sequential downloads read to their end never hold a slot.
    for (let i = 0; i < 3; i += 1) {
      expect((await (await get("https://video.twimg.com/file/1000")).arrayBuffer()).byteLength).toBe(1000);
    }
  });
});
