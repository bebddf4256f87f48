// Shared pieces of the benchmarks: start the built service as a child process, and a small
// keep-alive HTTP load generator that reports requests per second and latency percentiles.
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { once } from "node:events";

export async function startService(env) {
  const child = spawn(process.execPath, ["dist/node.mjs"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  const url = await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      if (output.length < 10_000) output += chunk;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`service exited with ${code}: ${output}`)));
  });
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

export async function runAdmin(args, env, stdin = "") {
  const child = spawn(process.execPath, ["dist/admin.mjs", ...args], { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stdin.end(stdin);
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`admin ${args.join(" ")} failed with ${code}`);
  return stdout.trim();
}

/**
 * Keeps `connections` requests in flight for `durationMs`; returns rps and latency percentiles.
 * `url` may be a function of the request's sequence number, to make every request different.
 */
export async function load(url, { headers = {}, connections = 32, durationMs = 5000, warmupMs = 500 } = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const urlOf = typeof url === "function" ? url : () => url;
  let sequence = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const target = new URL(urlOf(sequence++));
      const started = performance.now();
      const req = request({ agent, host: target.hostname, port: target.port, path: target.pathname + target.search, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      });
      req.on("error", reject);
      req.end();
    });
  const latencies = [];
  const statuses = {};
  let measuring = false;
  const until = performance.now() + warmupMs + durationMs;
  setTimeout(() => (measuring = true), warmupMs);
  let startedAt = 0;
  const worker = async () => {
    while (performance.now() < until) {
      const { status, ms } = await one();
      if (!measuring) continue;
      if (!startedAt) startedAt = performance.now();
      latencies.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - startedAt) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), statuses };
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  const header = Object.keys(rows[0]);
  const cells = [header, ...rows.map((row) => header.map((h) => String(row[h])))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  for (const [n, row] of cells.entries()) {
    console.log(row.map((cell, i) => cell.padEnd(widths[i])).join("  "));
    if (n === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
