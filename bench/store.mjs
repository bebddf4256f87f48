// The service's footprint on each store: a first start on an empty store and a restart (ms until
// /healthz answers 200, peak RSS meanwhile), idle RSS, and peak RSS under 50 API connections and
// during a 1 GiB relay. RSS is the service process's own (/proc/<pid>/status: VmRSS sampled every
// 50 ms, VmHWM for the peak since start).
//
//   npm run bench -- store
import { mkdtempSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  cpuSeconds,
  createBenchKey,
  curl,
  fmt,
  load,
  memoryMB,
  printTable,
  sparseFile,
  startService,
  startSite,
  timedGet,
  withBenchDatabase,
} from "./lib.mjs";

const RELAY_BYTES = 2 ** 30;
const RELAYED = "https://video.twimg.com/big.mp4";

/** Runs `work` while sampling the process's RSS; resolves with the largest sample. */
async function peakRssDuring(pid, work) {
  let peak = memoryMB([pid], "VmRSS");
  const timer = setInterval(() => (peak = Math.max(peak, memoryMB([pid], "VmRSS"))), 50);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, memoryMB([pid], "VmRSS"));
}

/**
 * Starts the service and waits for /healthz: ms from the spawn, the CPU seconds the process used
 * by then (on a busy machine the wall time is mostly waiting for a core), and its peak RSS.
 */
async function startHealthy(env) {
  const started = performance.now();
  const service = await startService(env);
  for (;;) {
    const { status } = await timedGet(`${service.url}/healthz`).catch(() => ({ status: 0 }));
    if (status === 200) break;
    await sleep(10);
  }
  return {
    service,
    ms: performance.now() - started,
    cpu: cpuSeconds([service.pid]),
    peak: memoryMB([service.pid], "VmHWM"),
  };
}

async function measure(store, env, execSql) {
  const first = await startHealthy(env);
  await first.service.stop();
  const key = await createBenchKey(env, execSql);
  const again = await startHealthy(env);
  const { service } = again;
  try {
    await sleep(3000);
    const idle = memoryMB([service.pid], "VmRSS");
    const headers = { authorization: `Bearer ${key}` };
    const api = await peakRssDuring(
      service.pid,
      () => load(`${service.url}/api/v1/usage`, { headers, connections: 50, durationMs: 3000 }),
    );
    const relay = await peakRssDuring(
      service.pid,
      () =>
        curl(`${service.url}/api/v1/download?url=${encodeURIComponent(RELAYED)}`, [
          "-H",
          `Authorization: Bearer ${key}`,
        ]),
    );
    const target = (figure, limit) => `${fmt(figure, 0)} (${figure <= limit ? "met" : "NOT met"}: <= ${limit})`;
    const pglite = store === "pglite";
    return [
      {
        store,
        what: "first start on an empty store: ms to healthy",
        figure: pglite ? target(first.ms, 2000) : fmt(first.ms, 0),
      },
      { store, what: "first start: CPU s of the process by then", figure: fmt(first.cpu, 2) },
      { store, what: "first start: peak RSS MB", figure: pglite ? target(first.peak, 250) : fmt(first.peak, 0) },
      { store, what: "restart: ms to healthy", figure: pglite ? target(again.ms, 1000) : fmt(again.ms, 0) },
      { store, what: "restart: CPU s of the process by then", figure: fmt(again.cpu, 2) },
      { store, what: "restart: peak RSS MB", figure: pglite ? target(again.peak, 250) : fmt(again.peak, 0) },
      { store, what: "idle RSS MB (3 s after start)", figure: pglite ? target(idle, 200) : fmt(idle, 0) },
      { store, what: "peak RSS MB, 50 connections on /usage for 3 s", figure: pglite ? target(api, 250) : fmt(api, 0) },
      { store, what: "peak RSS MB, relaying 1 GiB", figure: pglite ? target(relay, 250) : fmt(relay, 0) },
    ];
  } finally {
    await service.stop();
  }
}

export async function benchStore() {
  const temp = mkdtempSync(join(tmpdir(), "bench-store-"));
  const stoppers = [];
  try {
    const big = sparseFile(temp, "big.mp4", RELAY_BYTES);
    const site = await startSite({ "/big.mp4": { file: big, type: "video/mp4" } });
    stoppers.push(site.close);
    const common = { ORIGIN_OVERRIDES: `video.twimg.com=${site.url}`, MAX_DOWNLOAD_BYTES: String(2 ** 40) };
    const rows = await measure("pglite", { ...common, DATA_DIR: join(temp, "data") });

    await withBenchDatabase(async (DATABASE_URL, execSql) => {
      rows.push(...(await measure("postgres", { ...common, DATABASE_URL }, execSql)));
    });
    printTable(
      `Footprint of the service process (Node) on each store; targets are the embedded store's (issue 13); load average ${
        os.loadavg()[0].toFixed(1)
      } on ${os.cpus().length} cores`,
      rows,
    );
  } finally {
    for (const stop of stoppers.reverse()) await stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
