// The service's memory and start budget (issue 58), as an operator runs it: `node dist/node.mjs` on
// a fresh DATA_DIR. A first start and a restart on the same folder, each timed to /readyz 200 with
// the node process's high-water mark (VmHWM); at rest, the tree's PSS by part (the node process and,
// inside it, PGlite's WebAssembly memory; the extraction host and its warm workers); the queue's
// workers, which start once the queue holds work, measured as they start; and a relayed GiB's peak
// RSS. Each figure beside its budget and the anchor it was measured against before.
//
//   npm run bench -- footprint       (env: FOOTPRINT_RELAY_MB=1024)

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  cpuSeconds,
  createBenchKey,
  curl,
  descendants,
  fmt,
  memoryMB,
  printTable,
  pssMB,
  startFileOrigin,
  startService,
} from "./lib.mjs";

const RELAY_BYTES = Number(process.env.FOOTPRINT_RELAY_MB ?? 1024) * 2 ** 20;

// Budgets (MB; PSS unless said) that add up to the idle tree's 200, and the whole's other targets.
const BUDGET = {
  node: 95,
  store: 25,
  queueWorkers: 5,
  hostAndForks: 80,
  tree: 200,
  firstStartMs: 2000,
  restartMs: 1000,
  startHwm: 300,
  relayPeak: 250,
};
// As measured before this bench existed (issue 58), on a quiet 2-core machine.
const ANCHOR = {
  tree: "334-371",
  firstStartMs: "4 000",
  restartMs: "3 200",
  startHwm: "770-780",
  relayPeak: "345",
};

/** Services still running, stopped at the end whatever happened. */
const running = new Set();

async function stopped(service) {
  running.delete(running.values().find((each) => each.pid === service.pid));
  await service.stop();
}

/**
 * The extraction host's pid once it is warm (its warm-up takes ~1.5 s quiet, minutes on a busy
 * machine), or why it is not in use: then its part is left out and the table says why.
 */
async function warmHost(url) {
  for (const until = performance.now() + 300_000; performance.now() < until; await sleep(200)) {
    const ready = await fetch(`${url}/readyz`).then((response) => response.json());
    const detail = ready.checks["extraction-host"]?.detail ?? "";
    const pid = /^in use: pid (\d+)/.exec(detail)?.[1];
    if (pid) return { pid: Number(pid) };
    if (detail.startsWith("not in use (unavailable")) return { pid: null, why: detail };
  }
  throw new Error("the extraction host did not start within 300 s");
}

/** Starts the built service and waits for /readyz 200: its pid, URL, ms to ready, its CPU then and the load average. */
async function start(env) {
  const started = performance.now();
  const load = loadavg()[0];
  const service = await startService(env);
  running.add(service);
  while ((await fetch(`${service.url}/readyz`).then((r) => r.status, () => 0)) !== 200) await sleep(20);
  const readyMs = performance.now() - started;
  // CPU seconds say more than the wall time where other work shares the cores.
  return { ...service, readyMs, cpuAtReady: cpuSeconds([service.pid]), load };
}

/**
 * The PSS of PGlite's WebAssembly memory in `pid`, in MB: V8 reserves a wasm memory's whole address
 * range (8 GiB and more) and makes the part in use readable, so it is the readable mapping that
 * ends where a reservation of over 4 GiB without access begins.
 */
function wasmMemoryMB(pid) {
  const maps = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4})/.exec(line);
    if (head) maps.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perm: head[3], pss: 0 });
    const pss = /^Pss:\s+(\d+) kB/.exec(line);
    if (pss) maps.at(-1).pss = Number(pss[1]) / 1024;
  }
  return maps.reduce((sum, map, i) => {
    const next = maps[i + 1];
    const reservation = next && next.perm === "---p" && next.start === map.end && next.end - next.start > 2n ** 32n;
    return reservation && map.perm === "rw-p" ? sum + map.pss : sum;
  }, 0);
}

/**
 * Waits until the processes use under 2 % of a core over a second, for up to 3 minutes: after a
 * start V8 may go on compiling the store's WebAssembly on its helper threads for a minute on a busy
 * machine, and what it holds meanwhile is no rest.
 */
async function atRest(pids) {
  for (const until = performance.now() + 180_000; performance.now() < until;) {
    const before = cpuSeconds(pids);
    await sleep(1000);
    if (cpuSeconds(pids) - before < 0.02) return;
  }
}

/** The tree at rest, by part: the node process (PGlite's memory apart), the host, its warm workers, the rest. */
async function partsAtRest(service) {
  const { pid: hostPid, why } = await warmHost(service.url);
  await atRest([service.pid]);
  const hostTree = hostPid === null ? [] : descendants(hostPid);
  // Every process under the host is a fork of it (its chooser, its warm workers), named by what it is.
  const forks = hostTree.slice(1);
  const names = forks.map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      return "ended";
    }
  });
  const node = pssMB([service.pid]);
  const store = wasmMemoryMB(service.pid);
  const host = hostPid === null ? 0 : pssMB([hostPid]);
  const hostWorkers = pssMB(forks);
  const total = pssMB(descendants(service.pid));
  const rest = total - node - host - hostWorkers;
  return { node, store, host, hostWorkers, forkNames: names.join(", ") || "none", rest, total, hostWhy: why };
}

/**
 * Makes the queue hold work (a job of one link), which starts this instance's workers; their cost in
 * the node process, and how much of it is the store's memory grown by the job's queries.
 */
async function queueWorkersMB(service, key) {
  const before = pssMB([service.pid]);
  const storeBefore = wasmMemoryMB(service.pid);
  const response = await fetch(`${service.url}/api/v1/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ urls: ["https://x.com/jack/status/20"] }),
  });
  if (response.status !== 202 && response.status !== 201) throw new Error(`a job was refused: ${response.status}`);
  await sleep(2000);
  await atRest([service.pid]);
  return { total: pssMB([service.pid]) - before, store: wasmMemoryMB(service.pid) - storeBefore };
}

/** The node process's peak RSS (sampled every 50 ms) while a GiB is relayed from a local origin. */
async function relayPeakMB(service, key) {
  const pid = service.pid;
  let peak = memoryMB([pid], "VmRSS");
  let relaying = true;
  const sampling = (async () => {
    while (relaying) {
      peak = Math.max(peak, memoryMB([pid], "VmRSS"));
      await sleep(50);
    }
  })();
  const url = `${service.url}/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/big.mp4")}`;
  const { size } = await curl(url, ["-H", `Authorization: Bearer ${key}`]);
  relaying = false;
  await sampling;
  if (size !== RELAY_BYTES) throw new Error(`the relay sent ${size} bytes, not ${RELAY_BYTES}`);
  return peak;
}

/** A table row: `value` against `budget` (a relay's peak must stay under it, the rest at or under). */
const row = (part, value, budget, anchor = "", shown = fmt(value)) => ({
  part,
  figure: shown,
  budget: budget === undefined ? "" : String(budget),
  met: budget === undefined
    ? ""
    : value < budget || (value === budget && budget !== BUDGET.relayPeak)
    ? "met"
    : "NOT met",
  anchor,
});

export async function benchFootprint() {
  const temp = mkdtempSync(join(tmpdir(), "footprint-bench-"));
  const origin = await startFileOrigin(temp, RELAY_BYTES);
  if (!origin) throw new Error("the footprint bench needs nginx for its relay origin");
  try {
    const env = {
      DATA_DIR: join(temp, "data"),
      ORIGIN_OVERRIDES: `video.twimg.com=${origin.url}`,
      MAX_DOWNLOAD_BYTES: String(2 ** 40),
    };
    const first = await start(env);
    const firstParts = await partsAtRest(first);
    const firstHwm = memoryMB([first.pid], "VmHWM");
    await stopped(first);

    const key = await createBenchKey(env);
    const again = await start(env);
    const parts = await partsAtRest(again);
    const againHwm = memoryMB([again.pid], "VmHWM");
    const workers = await queueWorkersMB(again, key);
    const relay = await relayPeakMB(again, key);
    await stopped(again);

    const load = (each) => `${fmt(each.readyMs, 0)} (${fmt(each.cpuAtReady, 2)} CPU s, load ${fmt(each.load, 1)})`;
    printTable("Footprint: the built service on a fresh DATA_DIR (MB PSS at rest unless said; ms)", [
      row("node process (all but PGlite's memory)", parts.node - parts.store, BUDGET.node),
      row("the store: PGlite's WebAssembly memory", parts.store, BUDGET.store),
      row("the queue's workers (started by the first job)", workers.total, BUDGET.queueWorkers),
      row("of which the store's memory, grown by the job", workers.store),
      row(parts.hostWhy ? `extraction host: ${parts.hostWhy.slice(0, 60)}` : "extraction host", parts.host),
      row(`its forks at rest (${parts.forkNames})`, parts.hostWorkers),
      row("the extraction host and its forks", parts.host + parts.hostWorkers, BUDGET.hostAndForks),
      row("the watchdogs' shells", parts.rest),
      row("the tree at rest, first start", firstParts.total, BUDGET.tree, ANCHOR.tree),
      row("the tree at rest, restart", parts.total, BUDGET.tree, ANCHOR.tree),
      row("first start to /readyz 200, ms", first.readyMs, BUDGET.firstStartMs, ANCHOR.firstStartMs, load(first)),
      row("restart to /readyz 200, ms", again.readyMs, BUDGET.restartMs, ANCHOR.restartMs, load(again)),
      row("first start's VmHWM (RSS)", firstHwm, BUDGET.startHwm, ANCHOR.startHwm),
      row("restart's VmHWM (RSS)", againHwm, BUDGET.startHwm, ANCHOR.startHwm),
      row(`relaying ${RELAY_BYTES / 2 ** 20} MiB: peak RSS`, relay, BUDGET.relayPeak, ANCHOR.relayPeak),
    ]);
  } finally {
    for (const service of running) await service.stop();
    origin.stop();
    await sleep(300);
    rmSync(temp, { recursive: true, force: true });
  }
}
