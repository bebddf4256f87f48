// Direct-mode relay throughput on loopback: a 1 GiB file from a local origin, read with curl,
// through each relay variant in its own process (bench/relay-child.ts). Reports MB/s (median),
// CPU seconds per GiB of the relay process, its peak RSS, and its RSS under a 1 MB/s client.
//
//   npm run bench -- relay           (env: RELAY_BENCH_MB=1024, RELAY_BENCH_RUNS=3, RELAY_BENCH_SLOW_S=5,
//                                    RELAY_BENCH_ONLY=pipe,relay to run only some of nginx, pipe, relay,
//                                    relay-web, relay-fetch, service; the origin row always runs)
//
// The origin and the nginx proxy_pass row use /usr/sbin/nginx when it exists (run as root, in the
// foreground, from a temp config); otherwise the origin is a Node server and the nginx row is left out.

import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  cpuSeconds,
  createBenchKey,
  curl,
  freePort,
  median,
  memoryMB,
  processTree,
  startFileOrigin,
  startNginx,
  startService,
  untilIdle,
  waitForPort,
} from "./lib.mjs";

const SIZE = Number(process.env.RELAY_BENCH_MB ?? 1024) * 1024 * 1024;
const RUNS = Number(process.env.RELAY_BENCH_RUNS ?? 3);
const SLOW_SECONDS = Number(process.env.RELAY_BENCH_SLOW_S ?? 5);
const ONLY = process.env.RELAY_BENCH_ONLY?.split(",");
const wanted = (variant) => !ONLY || ONLY.includes(variant);
const here = path.dirname(fileURLToPath(import.meta.url));
let temp;
const stoppers = [];

async function startChild(bundle, variant, port, target) {
  const child = fork(bundle, [variant, String(port), target], { stdio: "inherit" });
  stoppers.push(() => child.kill("SIGTERM"));
  await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`${variant} exited with ${code}`)));
  });
  return child.pid;
}

async function main() {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "relay-bench-"));
  const bundle = path.join(temp, "child.mjs");
  await build({
    entryPoints: [path.join(here, "relay-child.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "warning",
  });

  const nginxOrigin = await startFileOrigin(temp, SIZE);
  let originPort;
  let originPid;
  let target;
  if (nginxOrigin) {
    stoppers.push(nginxOrigin.stop);
    originPort = Number(new URL(nginxOrigin.url).port);
    originPid = nginxOrigin.pid;
    target = `${nginxOrigin.url}/big.mp4`;
  } else {
    originPort = await freePort();
    target = `http://127.0.0.1:${originPort}/big.mp4?size=${SIZE}`;
    originPid = await startChild(bundle, "origin", originPort, target);
    await waitForPort(originPort);
  }

  const variants = [{ name: "straight from the origin", port: originPort, pid: originPid }];
  if (nginxOrigin && wanted("nginx")) {
    const port = await freePort();
    const proxy = startNginx(
      path.join(temp, "proxy"),
      `server { listen 127.0.0.1:${port};
    location / { proxy_pass http://127.0.0.1:${originPort}; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_buffer_size 64k; proxy_buffers 8 64k; proxy_busy_buffers_size 128k; proxy_max_temp_file_size 0; } }`,
    );
    stoppers.push(proxy.stop);
    await waitForPort(port);
    variants.push({ name: "nginx proxy_pass, 64 KiB buffers", port, pid: proxy.pid });
  }
  for (
    const [name, variant] of [
      ["node:http request pipe (10 lines)", "pipe"],
      ["relayMedia, nodeUpstream, Node-body fast path", "relay"],
      ["relayMedia, nodeUpstream, Web stream body", "relay-web"],
      ["relayMedia, fetchUpstream, Web stream body", "relay-fetch"],
    ].filter(([, variant]) => wanted(variant))
  ) {
    const port = await freePort();
    variants.push({ name, variant, port, pid: await startChild(bundle, variant, port, target) });
  }

  if (wanted("service")) {
    // The whole service (dist/node.mjs): bearer key, admission, router, relay, Node adapter.
    const dataDir = path.join(temp, "service-data");
    const env = {
      DATA_DIR: dataDir,
      ORIGIN_OVERRIDES: `video.twimg.com=http://127.0.0.1:${originPort}`,
      MAX_DOWNLOAD_BYTES: String(2 ** 40),
    };
    const key = await createBenchKey(env);
    const service = await startService(env);
    stoppers.push(() => service.stop());
    variants.push({
      name: "the service (dist/node.mjs), GET /api/v1/download",
      pid: service.pid,
      url: `${service.url}/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/big.mp4")}`,
      curlArgs: ["-H", `Authorization: Bearer ${key}`],
      service: true,
    });
  }
  for (const v of variants) {
    v.url ??= `http://127.0.0.1:${v.port}/big.mp4`;
    v.curlArgs ??= [];
  }

  // Warm-up, then runs in rotation so drift over time hits every variant alike. One whole file
  // each, then a wait until every process is idle: the service's embedded store keeps V8
  // compiling its WASM in the background for seconds after start, which would otherwise be
  // counted as relay CPU.
  for (const v of variants) await curl(v.url, v.curlArgs).catch(() => null);
  for (const v of variants) await untilIdle(processTree(v.pid));
  for (const v of variants) Object.assign(v, { speeds: [], cpus: [] });
  for (let run = 0; run < RUNS; run++) {
    for (const v of variants) {
      const pids = processTree(v.pid);
      const before = cpuSeconds(pids);
      const { speed, size } = await curl(v.url, v.curlArgs);
      if (size !== SIZE) throw new Error(`${v.name}: got ${size} bytes, expected ${SIZE}`);
      v.speeds.push(speed / 1e6);
      v.cpus.push((cpuSeconds(pids) - before) / (size / 2 ** 30));
    }
  }

  // A client at 1 MB/s: backpressure must keep the relay's memory flat.
  for (const v of variants.slice(1)) {
    const pids = processTree(v.pid);
    const samples = [];
    const slow = curl(v.url, [...v.curlArgs, "--limit-rate", "1M", "--max-time", String(SLOW_SECONDS)]).catch(() =>
      null
    );
    for (let t = 0; t < SLOW_SECONDS * 4; t++) {
      await sleep(250);
      samples.push(memoryMB(pids, "VmRSS"));
    }
    await slow;
    v.slow = { first: samples[3] ?? samples[0], last: samples.at(-1), max: Math.max(...samples) };
    v.peak = memoryMB(pids, "VmHWM");
  }

  const pipe = variants.find((v) => v.variant === "pipe") ?? variants[0];
  const fmt = (x, digits = 0) => x.toFixed(digits);
  console.log(
    `\n${
      SIZE / 2 ** 20
    } MiB over loopback, median of ${RUNS} runs, Node ${process.version}, ${os.cpus().length} cores\n`,
  );
  console.log(
    `| relay | MB/s | x ${
      pipe.variant ?? "origin"
    } | CPU s per GiB | peak RSS MB | RSS at 1 MB/s client: 1 s -> max -> end MB |`,
  );
  console.log("|---|---|---|---|---|---|");
  for (const v of variants) {
    const speed = median(v.speeds);
    const slow = v.slow ? `${fmt(v.slow.first)} -> ${fmt(v.slow.max)} -> ${fmt(v.slow.last)}` : "";
    console.log(
      `| ${v.name} | ${fmt(speed)} (${v.speeds.map((s) => fmt(s)).join(", ")}) | ${
        fmt(speed / median(pipe.speeds), 2)
      } | ${fmt(median(v.cpus), 2)} | ${v.peak ? fmt(v.peak) : ""} | ${slow} |`,
    );
  }
  const service = variants.find((v) => v.service);
  if (service && pipe.variant === "pipe") {
    // Issue 13: the whole service at least as fast as the pipe, at no more CPU per GiB.
    const speedRatio = median(service.speeds) / median(pipe.speeds);
    const cpuRatio = median(service.cpus) / median(pipe.cpus);
    console.log(`\nTargets (issue 13), the service against the pipe in this run:`);
    console.log(`  MB/s ${fmt(speedRatio, 2)}x the pipe (target >= 1.00: ${speedRatio >= 1 ? "met" : "NOT met"})`);
    console.log(`  CPU per GiB ${fmt(cpuRatio, 2)}x the pipe (target <= 1.00: ${cpuRatio <= 1 ? "met" : "NOT met"})`);
  }
}

export async function benchRelay() {
  try {
    await main();
  } finally {
    for (const stop of stoppers) await stop();
    await sleep(300);
    fs.rmSync(temp, { recursive: true, force: true });
  }
}
