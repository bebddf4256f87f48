// Issue 22 item 2: no account takes the page-mode slots away from the others (the caps count per
// account as well as per key, and the instance's last slot is kept for accounts that hold none),
// and a client that reads nothing is cut after CLIENT_STALL_TIMEOUT_S, which ends its source.
// Issue 32 item 4: nor do many accounts: those of one client address share one fair share, and
// FREE keys hold at most their part of the instance. Each account calls from an address of its
// own on 127.0.0.0/8 unless a test says otherwise.
import http from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer } from "../../src/runtime/serve.ts";
import { createApiKey, type Tier } from "../../src/store/api-keys.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

interface Started {
  status: number;
  /** The problem's code of a refusal. */
  code: string | null;
  detail: string | null;
  /** Ends the download from the client's side. */
  stop(): void;
}

let addresses = 0;
/** A loopback address no other account of this file calls from. */
const freshAddress = () => {
  addresses += 1;
  return `127.0.${1 + (addresses >> 8)}.${addresses & 255}`;
};

/**
 * Starts a GET from `from` and resolves at its response head; a 2xx body is read (and dropped) as
 * it comes, or with `slowly` a chunk every 200 ms, as a client reading about 25 KB/s would.
 */
function startGet(url: string, key: string, from: string, slowly = false): Promise<Started> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${key}` }, localAddress: from }, (response) => {
      const stop = () => request.destroy();
      if (response.statusCode! < 300) {
        response.on("error", () => {});
        if (!slowly) response.resume();
        else {
          const reader = setInterval(
            () => (response.destroyed ? clearInterval(reader) : response.read(25_000 / 5)),
            200,
          );
          response.on("close", () => clearInterval(reader));
        }
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
        MAX_REMUXES: "4",
        // The stalled source holds its slot for the whole test; a client that reads nothing is cut soon.
        DOWNLOAD_IDLE_TIMEOUT_S: "60",
        CLIENT_STALL_TIMEOUT_S: "2",
      },
    });
    server = await serveNode(app, { port: 0, hostname: "127.0.0.1" });
    // Making the site's media takes ffmpeg a while on a busy machine.
  }, scaled(180_000));
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
      more.push(
        (await createApiKey(store.db, {
          accountId: first.accountId,
          name: `key ${i}`,
          tier,
          expiresInDays: null,
          now: new Date("2026-01-01T00:00:00.000Z"),
        })).plain,
      );
    }
    return [first.plain, ...more];
  }

  /** A page-mode download of the clip from a fresh address, read to its end: the slot was there. */
  function wholeDownload(key: string): Promise<{ status: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      http
        .get(downloadUrl(site.pages.progressive), {
          headers: { authorization: `Bearer ${key}` },
          localAddress: freshAddress(),
        }, (response) => {
          let bytes = 0;
          response.on("data", (chunk: Buffer) => (bytes += chunk.length));
          // "end" only after the last chunk: a cut body is an error instead.
          response.on("end", () => resolve({ status: response.statusCode!, bytes }));
          response.on("error", reject);
        })
        .on("error", reject);
    });
  }

  /** The page-mode slots held now, as /metrics says. */
  async function remuxesHeld(): Promise<number> {
    const text = await (await fetch(`${server.address}/metrics`)).text();
    return Number(/^media_api_slots_held\{kind="remuxes"\} (\d+)$/m.exec(text)?.[1]);
  }

  /** Ends the held downloads and waits until their ffmpeg has ended and given the slots back. */
  async function release(): Promise<void> {
    for (const each of held.splice(0)) each.stop();
    await expect.poll(remuxesHeld, { timeout: scaled(30_000), interval: 100 }).toBe(0);
  }

  it("gives four FREE keys of one account one page-mode slot between them, and another account a slot", async () => {
    const keys = await accountKeys("FREE", 4);
    const first = await startGet(downloadUrl(site.pages.stalledMedia), keys[0]!, freshAddress());
    held.push(first);
    expect(first.status, first.detail ?? "").toBe(200);
    for (const key of keys.slice(1)) {
      const refused = await startGet(downloadUrl(site.pages.stalledMedia), key, freshAddress());
      held.push(refused);
      expect(refused.status).toBe(429);
      expect(refused.code).toBe("too_many_downloads");
      expect(refused.detail).toMatch(/for an account using a FREE key/);
    }
    const [other] = await accountKeys("FREE", 1);
    const served = await wholeDownload(other!);
    expect(served.status).toBe(200);
    expect(served.bytes).toBeGreaterThan(1000);
    await release();
  }, scaled(60_000));

  it("keeps the instance's last page-mode slot for an account that holds none", async () => {
    const [gold] = await accountKeys("GOLD", 1);
    const from = freshAddress();
    for (let i = 0; i < 3; i += 1) {
      const started = await startGet(downloadUrl(site.pages.stalledMedia), gold!, from);
      held.push(started);
      expect(started.status).toBe(200);
    }
    const fourth = await startGet(downloadUrl(site.pages.stalledMedia), gold!, from);
    expect(fourth.status).toBe(429);
    expect(fourth.detail).toMatch(/last slots are kept for other accounts/);
    const [other] = await accountKeys("FREE", 1);
    expect((await wholeDownload(other!)).status).toBe(200);
    await release();
  }, scaled(60_000));

  it("gives the FREE accounts of one client address one page-mode slot between them", async () => {
    const from = freshAddress();
    const first = await startGet(downloadUrl(site.pages.stalledMedia), (await accountKeys("FREE", 1))[0]!, from, true);
    held.push(first);
    expect(first.status, first.detail ?? "").toBe(200);
    for (let i = 0; i < 3; i += 1) {
      const refused = await startGet(downloadUrl(site.pages.stalledMedia), (await accountKeys("FREE", 1))[0]!, from);
      held.push(refused);
      expect(refused.status).toBe(429);
      expect(refused.detail).toMatch(/for the accounts of one client address using a FREE key/);
    }
    await release();
  }, scaled(60_000));

  it(
    "serves a GOLD key's page download while 12 FREE accounts from 12 addresses hold theirs with slow readers",
    async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        const started = await startGet(
          downloadUrl(site.pages.stalledMedia),
          (await accountKeys("FREE", 1))[0]!,
          freshAddress(),
          true,
        );
        held.push(started);
        statuses.push(started.status);
        if (started.status !== 200) expect(started.detail).toMatch(/part for FREE keys is taken/);
      }
      // FREE keys hold half of the instance's 4 slots; the rest waits for paying keys.
      expect(statuses.filter((status) => status === 200)).toHaveLength(2);
      expect(await remuxesHeld()).toBe(2);
      const [gold] = await accountKeys("GOLD", 1);
      const served = await wholeDownload(gold!);
      expect(served.status).toBe(200);
      expect(served.bytes).toBeGreaterThan(1000);
      await release();
    },
    scaled(120_000),
  );

  it(
    "counts a stream copy and an MP3 conversion apart: a FREE key copying one page can convert another, not copy a second",
    async () => {
      const [key] = await accountKeys("FREE", 1);
      const from = freshAddress();
      const copying = await startGet(downloadUrl(site.pages.stalledMedia), key!, from, true);
      held.push(copying);
      expect(copying.status).toBe(200);
      const converted = await fetch(`${downloadUrl(site.pages.progressive)}&audio=mp3`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(converted.status).toBe(200);
      expect(converted.headers.get("content-type")).toBe("audio/mpeg");
      expect((await converted.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      const second = await startGet(downloadUrl(site.pages.progressive), key!, from);
      expect(second.status).toBe(429);
      expect(second.code).toBe("too_many_downloads");
      expect(second.detail).toMatch(/for a FREE key/);
      await release();
    },
    scaled(60_000),
  );

  for (
    const { name, path } of [
      { name: "with a length (sent natively)", path: "/file/67108864" },
      { name: "without a length (a Web stream)", path: "/file/67108864?chunked=1" },
    ]
  ) {
    it(`cuts a direct download ${name} whose client reads nothing after the head, and ends the upstream`, async () => {
      const [key] = await accountKeys("FREE", 1);
      const before = cdn.requests.length;
      const { port } = new URL(server.address);
      const socket = connect(Number(port), "127.0.0.1");
      const target = `/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`;
      socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      const head = await new Promise<string>((resolve) =>
        socket.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1")))
      );
      // The client stops reading: from here the kernel's buffers fill, then nothing is taken.
      socket.pause();
      const paused = Date.now();
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      const outcome = await Promise.race([
        cdn.requests[before]!.outcome,
        new Promise((r) => setTimeout(() => r("still open"), scaled(10_000))),
      ]);
      expect(outcome).toBe("closed");
      const seconds = (Date.now() - paused) / 1000;
      expect(seconds).toBeGreaterThanOrEqual(1.5);
      socket.destroy();
    }, scaled(30_000));
  }
});
