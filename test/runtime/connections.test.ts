// Issue 22 item 1, against the built service on Node and on Bun (Deno's server offers neither
// bound; docs/runtimes.md): idle connections from one address cannot take the service away from
// another address, and a connection that sends no complete request head is closed, its descriptor
// released, within REQUEST_HEAD_TIMEOUT_S.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeSha256, startFakeCdn, type FakeCdn } from "../fakes/cdn.ts";
import { runAdmin, startService, type RunningService } from "../helpers/service.ts";
import { createHash } from "node:crypto";

const runtimes = [
  { name: "node", program: process.execPath },
  { name: "bun", program: resolve("node_modules/.bin/bun") },
];

/** The service under `fileLimit` open files (soft and hard, so the runtime cannot raise it). */
const limitedCommand = (program: string, bundle: string, fileLimit: number) => ["/bin/sh", "-c", `ulimit -n ${fileLimit} && exec "${program}" ${bundle}`];

interface Opened {
  socket: Socket;
  /** Everything the server sent. */
  received: () => string;
  /** Whether the server ended or reset its side. */
  closedByServer: () => boolean;
}

/**
 * One connection from `localAddress` that keeps its own side open (no FIN) until destroyed, and
 * sends `text` if any. Resolves once connected, or once refused or closed before that.
 */
function open(url: string, localAddress: string, text = ""): Promise<Opened> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    let received = "";
    let closed = false;
    const socket = connect({ host: hostname, port: Number(port), localAddress, allowHalfOpen: true });
    const opened = { socket, received: () => received, closedByServer: () => closed };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("end", () => (closed = true));
    socket.on("error", () => (closed = true));
    socket.on("close", () => {
      closed = true;
      done(opened);
    });
    socket.once("connect", () => {
      if (text) socket.write(text);
      done(opened);
    });
  });
}

/** `count` connections, opened `batch` at a time. */
async function openMany(url: string, localAddress: string, count: number, batch = 250): Promise<Opened[]> {
  const all: Opened[] = [];
  for (let at = 0; at < count; at += batch) {
    all.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - at) }, () => open(url, localAddress)))));
  }
  return all;
}

const descriptorsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return condition();
}

describe.each(runtimes)("connections on $name", ({ name, program }) => {
  const bundle = `dist/${name}.mjs`;
  let cdn: FakeCdn;
  const dataDirs: string[] = [];
  const services: RunningService[] = [];
  const sockets: Socket[] = [];

  async function start(env: Record<string, string>, command: string[]): Promise<{ service: RunningService; key: string }> {
    const dataDir = mkdtempSync(join(tmpdir(), `connections-${name}-`));
    dataDirs.push(dataDir);
    const service = await startService({ DATA_DIR: dataDir, ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}`, ...env }, command);
    services.push(service);
    await runAdmin(["users", "create", "--email", "conn@example.com"], { DATA_DIR: dataDir }, "a long password\n");
    const key = (await runAdmin(["keys", "create", "--email", "conn@example.com", "--tier", "FREE"], { DATA_DIR: dataDir })).stdout.trim();
    return { service, key };
  }

  beforeAll(async () => {
    cdn = await startFakeCdn();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(services.map((service) => service.stop()));
    await cdn?.close();
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves /healthz and a download to 127.0.0.1 while 127.0.0.2 holds 2 000 idle connections, under 1 024 open files", async () => {
    const { service, key } = await start({ REQUEST_HEAD_TIMEOUT_S: "60" }, limitedCommand(program, bundle, 1024));
    const idle = await openMany(service.url, "127.0.0.2", 2000);
    sockets.push(...idle.map((each) => each.socket));

    const health = await fetch(`${service.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    expect(health.status).toBe(200);
    const download = await fetch(`${service.url}/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/file/300000")}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(10_000),
    });
    expect(download.status).toBe(200);
    expect(createHash("sha256").update(Buffer.from(await download.arrayBuffer())).digest("hex")).toBe(fakeSha256(0, 300000));
    // The caps closed the excess (Bun's server tells of a connection a little later); the other
    // address still holds as many as one client may.
    const held = () => idle.filter((each) => !each.closedByServer()).length;
    expect(await until(() => held() <= 64, 10_000)).toBe(true);
    expect(held()).toBeGreaterThan(0);
    for (const each of idle) each.socket.destroy();
    expect(service.output.join("\n")).toMatch(/connections refused: a connection cap is reached/);
  }, 60_000);

  it("answers 408 to connections that send no complete head within REQUEST_HEAD_TIMEOUT_S, and closes them", async () => {
    const { service } = await start({ REQUEST_HEAD_TIMEOUT_S: "2" }, [program, bundle]);
    const pid = service.child.pid!;
    // Settled: the tools' probes at start-up have their own pipes.
    await new Promise((r) => setTimeout(r, 1_500));
    const before = descriptorsOf(pid);
    const opened = Date.now();
    const silent = await Promise.all(Array.from({ length: 20 }, () => open(service.url, "127.0.0.3")));
    const partial = await Promise.all(Array.from({ length: 20 }, () => open(service.url, "127.0.0.3", "GET /healthz HTTP/1.1\r\nHost: x\r\n")));
    const all = [...silent, ...partial];
    sockets.push(...all.map((each) => each.socket));
    expect(await until(() => descriptorsOf(pid) >= before + 40, 2_000)).toBe(true);
    // The clients keep their ends open: only the server closing its own releases the descriptors.
    expect(await until(() => descriptorsOf(pid) <= before + 2, 6_000)).toBe(true);
    const seconds = (Date.now() - opened) / 1000;
    expect(seconds).toBeGreaterThanOrEqual(1.5);
    // The server's side is gone; the clients hear of it a moment later on a loaded machine.
    await until(() => all.every((each) => each.closedByServer()), 2_000);
    for (const each of all) {
      expect(each.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(each.received()).toMatch(/"code":"request_timeout"/);
      expect(each.closedByServer()).toBe(true);
    }
    for (const each of all) each.socket.destroy();
  }, 30_000);
});
