// Issue 22 item 2: no account takes the page-mode slots away from the others (the caps count per
// account as well as per key, and the instance's last slot is kept for accounts that hold none),
// and a client that reads nothing is cut after CLIENT_STALL_TIMEOUT_S, which ends its source.
import http from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer } from "../../src/runtime/serve.ts";
import { createApiKey, type Tier } from "../../src/store/api-keys.ts";
import { startFakeCdn, type FakeCdn } from "../fakes/cdn.ts";
import { startMediaSite, type MediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

interface Started {
  status: number;
  /** The problem's code of a refusal. */
  code: string | null;
  detail: string | null;
  /** Ends the download from the client's side. */
  stop(): void;
}

/** Starts a GET and resolves at its response head; a 2xx body is read (and dropped) as it comes. */
function startGet(url: string, key: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${key}` } }, (response) => {
      const stop = () => request.destroy();
      if (response.statusCode! < 300) {
        response.on("error", () => {});
        response.resume();
        return resolve({ status: response.statusCode!, code: null, detail: null, stop });
      }
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk));
      response.on("end", () => {
        const problem = JSON.parse(text) as { code: string; detail: string };
        resolve({ status: response.statusCode!, code: problem.code, detail: problem.detail, stop });
      });
    });
    request.on("error", (error) => (request.destroyed ? undefined : reject(error)));
  });
}

describe("page-mode slots shared between accounts, and clients that read nothing", () => {
  let store: TestStore;
  let cdn: FakeCdn;
  let site: MediaSite;
  let server: RunningServer;
  const held: Started[] = [];

  beforeAll(async () => {
    [store, cdn, site] = await Promise.all([openTestStore("pglite"), startFakeCdn(), startMediaSite()]);
    const { app } = buildTestApp(store.db, {
      env: {
        EXTRA_PAGE_HOSTS: site.host,
        ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}`,
        MAX_PAGE_DOWNLOADS: "4",
        // The stalled source holds its slot for the whole test; a client that reads nothing is cut soon.
        DOWNLOAD_IDLE_TIMEOUT_S: "60",
        CLIENT_STALL_TIMEOUT_S: "2",
      },
    });
    server = await serveNode(app, { port: 0, hostname: "127.0.0.1" });
  }, 60_000);
  afterAll(async () => {
    for (const each of held) each.stop();
    server?.cut();
    await server?.close();
    await Promise.all([store?.close(), cdn?.close(), site?.close()]);
  });

  const downloadUrl = (url: string) => `${server.address}/api/v1/download?url=${encodeURIComponent(url)}`;

  /** `count` keys of one new account. */
  async function accountKeys(tier: Tier, count: number): Promise<string[]> {
    const first = await makeKey(store.db, tier);
    const more = [];
    for (let i = 1; i < count; i += 1) {
      more.push((await createApiKey(store.db, { accountId: first.accountId, name: `key ${i}`, tier, expiresInDays: null, now: new Date("2026-01-01T00:00:00.000Z") })).plain);
    }
    return [first.plain, ...more];
  }

  /** A page-mode download of the clip, read to its end: the slot was there. */
  async function wholeDownload(key: string): Promise<{ status: number; bytes: number }> {
    const response = await fetch(downloadUrl(site.pages.progressive), { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, bytes: (await response.arrayBuffer()).byteLength };
  }

  function release(): void {
    for (const each of held.splice(0)) each.stop();
  }

  it("gives four FREE keys of one account one page-mode slot between them, and another account a slot", async () => {
    const keys = await accountKeys("FREE", 4);
    const first = await startGet(downloadUrl(site.pages.stalledMedia), keys[0]!);
    held.push(first);
    expect(first.status).toBe(200);
    for (const key of keys.slice(1)) {
      const refused = await startGet(downloadUrl(site.pages.stalledMedia), key);
      held.push(refused);
      expect(refused.status).toBe(429);
      expect(refused.code).toBe("too_many_downloads");
      expect(refused.detail).toMatch(/for an account using a FREE key/);
    }
    const [other] = await accountKeys("FREE", 1);
    const served = await wholeDownload(other!);
    expect(served.status).toBe(200);
    expect(served.bytes).toBeGreaterThan(1000);
    release();
  }, 60_000);

  it("keeps the instance's last page-mode slot for an account that holds none", async () => {
    // Slots freed by the previous test's cut downloads come back once their ffmpeg has ended.
    await new Promise((r) => setTimeout(r, 1_000));
    const [gold] = await accountKeys("GOLD", 1);
    for (let i = 0; i < 3; i += 1) {
      const started = await startGet(downloadUrl(site.pages.stalledMedia), gold!);
      held.push(started);
      expect(started.status).toBe(200);
    }
    const fourth = await startGet(downloadUrl(site.pages.stalledMedia), gold!);
    expect(fourth.status).toBe(429);
    expect(fourth.detail).toMatch(/last slots are kept for other accounts/);
    const [other] = await accountKeys("FREE", 1);
    expect((await wholeDownload(other!)).status).toBe(200);
    release();
  }, 60_000);

  it("counts a stream copy and an MP3 conversion apart: a FREE key copying one page can convert another, not copy a second", async () => {
    const [key] = await accountKeys("FREE", 1);
    const copying = await startGet(downloadUrl(site.pages.stalledMedia), key!);
    held.push(copying);
    expect(copying.status).toBe(200);
    const converted = await fetch(`${downloadUrl(site.pages.progressive)}&audio=mp3`, { headers: { authorization: `Bearer ${key}` } });
    expect(converted.status).toBe(200);
    expect(converted.headers.get("content-type")).toBe("audio/mpeg");
    expect((await converted.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const second = await startGet(downloadUrl(site.pages.progressive), key!);
    expect(second.status).toBe(429);
    expect(second.code).toBe("too_many_downloads");
    expect(second.detail).toMatch(/for a FREE key/);
    release();
  }, 60_000);

  for (const { name, path } of [
    { name: "with a length (sent natively)", path: "/file/67108864" },
    { name: "without a length (a Web stream)", path: "/file/67108864?chunked=1" },
  ]) {
    it(`cuts a direct download ${name} whose client reads nothing after the head, and ends the upstream`, async () => {
      const [key] = await accountKeys("FREE", 1);
      const before = cdn.requests.length;
      const { port } = new URL(server.address);
      const socket = connect(Number(port), "127.0.0.1");
      const target = `/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`;
      socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      const head = await new Promise<string>((resolve) => socket.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1"))));
      // The client stops reading: from here the kernel's buffers fill, then nothing is taken.
      socket.pause();
      const paused = Date.now();
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      const outcome = await Promise.race([cdn.requests[before]!.outcome, new Promise((r) => setTimeout(() => r("still open"), 10_000))]);
      expect(outcome).toBe("closed");
      const seconds = (Date.now() - paused) / 1000;
      expect(seconds).toBeGreaterThanOrEqual(1.5);
      socket.destroy();
    }, 30_000);
  }
});
