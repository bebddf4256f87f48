// Every operation under each runtime's entry (dist/node.mjs, dist/bun.mjs, dist/deno.mjs) against
// the same local upstreams: /healthz, /usage, a tweet from a warm cache, a direct-mode relay of a
// 1 GiB file (from nginx where there is one, so the origin is not the limit) next to the runtime's
// own fastest pass-through (bench/passthrough.mjs), each in MB/s and CPU seconds per GiB, and page
// mode's first byte. All services run side by side (each with its own
// PGlite store) and are measured in rotation, so drift and other load on the machine hit every
// runtime alike; each cell is the median over the rounds.
//
//   npm run bench -- runtimes        (env: RUNTIMES_BENCH_ONLY=node,bun to run only some,
//                                    RUNTIMES_BENCH_ROUNDS=3)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  clipRoutes,
  cpuSeconds,
  createBenchKey,
  curl,
  fmt,
  freePort,
  load,
  makeClip,
  median,
  printTable,
  processTree,
  runtimes,
  sparseFile,
  startFakeSyndication,
  startFileOrigin,
  startService,
  startSite,
  timedGet,
  untilIdle,
} from "./lib.mjs";

const RELAY_BYTES = 2 ** 30;
const ROUNDS = Number(process.env.RUNTIMES_BENCH_ROUNDS ?? 3);
const LOAD = { connections: 32, durationMs: 3000 };
const ONLY = process.env.RUNTIMES_BENCH_ONLY?.split(",");
const RELAYED = "https://video.twimg.com/big.mp4";

// Deno's fetch has no read timeout, so the cut of a quiet source (DOWNLOAD_IDLE_TIMEOUT_S) puts
// JavaScript on every relayed chunk; the last column shows Deno with the cut off (docs/runtimes.md).
const COLUMNS = [
  ...Object.keys(runtimes).map((runtime) => ({ runtime, name: runtime, extraEnv: {} })),
  { runtime: "deno", name: "deno, idle cut off", extraEnv: { DOWNLOAD_IDLE_TIMEOUT_S: "0" } },
];

const api = (service, operation, url) => `${service.url}/api/v1/${operation}?url=${encodeURIComponent(url)}`;

/** bench/passthrough.mjs under `runtime`, relaying from `origin`: the runtime's own fastest pass-through (or its node:http one). */
async function startPassthrough(runtime, origin, server = "") {
  const port = await freePort();
  const [command, args] = runtimes[runtime];
  const child = spawn(command, [...args.slice(0, -1), "bench/passthrough.mjs"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ORIGIN: origin, PORT: String(port), SERVER: server },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => String(chunk).includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`${runtime} passthrough exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/big.mp4`,
    pid: child.pid,
    stop: () => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM"))),
  };
}

/** One download through the process `pid`, once it is idle: curl's figures and the CPU seconds per GiB it cost. */
async function timedRelay(pid, url, curlArgs = []) {
  await untilIdle(processTree(pid));
  const before = cpuSeconds([pid]);
  const result = await curl(url, curlArgs);
  return { ...result, cpuPerGiB: (cpuSeconds([pid]) - before) / (result.size / 2 ** 30) };
}

/** One round of every operation against one service; numbers only, formatted later. */
async function measureOnce({ runtime, service, key, passthrough, lengthKeeping }, site) {
  const headers = { authorization: `Bearer ${key}` };
  const loads = {
    health: await load(`${service.url}/healthz`, LOAD),
    usage: await load(`${service.url}/api/v1/usage`, { ...LOAD, headers }),
    tweet: await load(api(service, "tweet", "https://x.com/NASA/status/1491475671058681863"), { ...LOAD, headers }),
  };
  for (const [name, r] of Object.entries(loads)) {
    if (Object.keys(r.statuses).some((status) => status !== "200")) {
      throw new Error(`${runtime} ${name}: statuses ${JSON.stringify(r.statuses)}`);
    }
  }
  const relay = await timedRelay(service.pid, api(service, "download", RELAYED), [
    "-H",
    `Authorization: Bearer ${key}`,
  ]);
  if (relay.size !== RELAY_BYTES) throw new Error(`${runtime}: relay sent ${relay.size} bytes, not ${RELAY_BYTES}`);
  const reference = await timedRelay(passthrough.pid, passthrough.url);
  const keptLength = lengthKeeping ? await timedRelay(lengthKeeping.pid, lengthKeeping.url) : reference;
  const page = await timedGet(api(service, "download", `${site.url}/clip10.html`), headers);
  if (page.status !== 200 || page.bytes === 0) {
    throw new Error(`${runtime}: page mode answered ${page.status} with ${page.bytes} bytes`);
  }
  return { ...loads, relay, reference, keptLength, page };
}

/** The rounds' medians as the cells of one runtime's column. */
function cells(rounds) {
  const at = (pick) => median(rounds.map(pick));
  const rps = (name) => `${fmt(at((r) => r[name].rps), 0)} (${fmt(at((r) => r[name].p50), 1)})`;
  return {
    "GET /healthz, req/s (p50 ms)": rps("health"),
    "GET /api/v1/usage, req/s (p50 ms)": rps("usage"),
    "tweet, warm cache, req/s (p50 ms)": rps("tweet"),
    "direct relay 1 GiB, MB/s (CPU s per GiB)": `${fmt(at((r) => r.relay.speed) / 1e6, 0)} (${
      fmt(at((r) => r.relay.cpuPerGiB), 2)
    })`,
    "the runtime's own pass-through, MB/s (CPU s per GiB)": `${fmt(at((r) => r.reference.speed) / 1e6, 0)} (${
      fmt(at((r) => r.reference.cpuPerGiB), 2)
    })`,
    "relay / own pass-through, MB/s (issue 13: >= 0.9)": fmt(at((r) => r.relay.speed / r.reference.speed), 2),
    "own pass-through that sends Content-Length, MB/s (CPU s per GiB)": `${
      fmt(at((r) => r.keptLength.speed) / 1e6, 0)
    } (${fmt(at((r) => r.keptLength.cpuPerGiB), 2)})`,
    "relay / that pass-through, MB/s": fmt(at((r) => r.relay.speed / r.keptLength.speed), 2),
    "direct relay sends Content-Length": rounds.every((r) => r.relay.contentLength === String(RELAY_BYTES))
      ? "yes"
      : "no",
    "page mode 10 s clip, cold, first byte ms": fmt(at((r) => r.page.firstByte), 0),
    "page mode 10 s clip, cold, total ms": fmt(at((r) => r.page.total), 0),
  };
}

export async function benchRuntimes() {
  const temp = mkdtempSync(join(tmpdir(), "bench-runtimes-"));
  const stoppers = [];
  try {
    const nginx = await startFileOrigin(temp, RELAY_BYTES);
    if (nginx) stoppers.push(nginx.stop);
    const big = nginx ? {} : { "/big.mp4": { file: sparseFile(temp, "big.mp4", RELAY_BYTES), type: "video/mp4" } };
    const site = await startSite({ ...clipRoutes(10, await makeClip(temp, 10)), ...big });
    stoppers.push(site.close);
    const mediaOrigin = nginx?.url ?? site.url;
    const syndication = await startFakeSyndication();
    stoppers.push(syndication.close);

    const services = [];
    for (const { runtime, name, extraEnv } of COLUMNS.filter((column) => !ONLY || ONLY.includes(column.runtime))) {
      const env = {
        ...extraEnv,
        DATA_DIR: join(temp, name),
        X_SYNDICATION_URL: syndication.url,
        X_GRAPHQL_URL: "off",
        ORIGIN_OVERRIDES: `video.twimg.com=${mediaOrigin}`,
        MAX_DOWNLOAD_BYTES: String(2 ** 40),
        EXTRA_PAGE_HOSTS: new URL(site.url).host,
        PAGE_CACHE_TTL_S: "0",
      };
      const key = await createBenchKey(env);
      const service = await startService(env, runtime);
      stoppers.push(service.stop);
      // Warms the relay path (JIT, connection pool) before it is timed.
      await curl(api(service, "download", RELAYED), ["-H", `Authorization: Bearer ${key}`, "--max-time", "0.5"]).catch(
        () => null,
      );
      const passthrough = await startPassthrough(runtime, mediaOrigin);
      stoppers.push(passthrough.stop);
      // Bun.serve's pass-through drops Content-Length; Node's and Deno's keep it.
      const lengthKeeping = runtime === "bun" ? await startPassthrough(runtime, mediaOrigin, "node:http") : null;
      if (lengthKeeping) stoppers.push(lengthKeeping.stop);
      services.push({ runtime, name, service, key, passthrough, lengthKeeping, rounds: [] });
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const entry of services) entry.rounds.push(await measureOnce(entry, site));
    }

    const columns = Object.fromEntries(services.map(({ name, rounds }) => [name, cells(rounds)]));
    printTable(
      `Runtimes (PGlite store; loads: ${LOAD.connections} connections, ${LOAD.durationMs / 1000} s; relay (from ${
        nginx ? "nginx" : "a Node server"
      }) and page mode one at a time; median of ${ROUNDS} rounds)`,
      Object.keys(Object.values(columns)[0]).map((operation) => ({
        operation,
        ...Object.fromEntries(Object.entries(columns).map(([runtime, column]) => [runtime, column[operation]])),
      })),
    );
  } finally {
    for (const stop of stoppers.reverse()) await stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
