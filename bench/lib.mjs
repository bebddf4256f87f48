// Shared pieces of the benchmarks: start the built service under a runtime as a child process, a
// key no quota stops, small local upstreams (X syndication, a static site with Range), a
// keep-alive HTTP load generator, timers for one download or one child process, and tables.
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  chmodSync,
  closeSync,
  createReadStream,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { Agent, createServer, request } from "node:http";
import { once } from "node:events";
import net from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";

/** Command and arguments that run each runtime's entry file, from the repository's root. */
export const runtimes = {
  node: [process.execPath, ["dist/node.mjs"]],
  bun: ["node_modules/.bin/bun", ["dist/bun.mjs"]],
  deno: ["node_modules/.bin/deno", ["run", "--allow-all", "--unstable-no-legacy-abort", "dist/deno.mjs"]],
};

export async function startService(env, runtime = "node") {
  const [command, args] = runtimes[runtime];
  const child = spawn(command, args, {
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
    child.once("exit", (code) => reject(new Error(`${runtime} service exited with ${code}: ${output}`)));
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

/** The extraction host's pid once /readyz says it is in use (it warms up after the service listens). */
export async function extractionHostPid(serviceUrl) {
  for (let tries = 0; tries < 600; tries++) {
    const ready = await fetch(`${serviceUrl}/readyz`).then((response) => response.json());
    const pid = /^in use: pid (\d+)/.exec(ready.checks["extraction-host"]?.detail ?? "")?.[1];
    if (pid) return Number(pid);
    await sleep(100);
  }
  throw new Error("the extraction host did not start");
}

export async function runAdmin(args, env, stdin = "") {
  const child = spawn(process.execPath, ["dist/admin.mjs", ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stdin.end(stdin);
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`admin ${args.join(" ")} failed with ${code}`);
  return stdout.trim();
}

// A tier with limits no benchmark reaches, so every call takes the admitted path.
const benchTierSql =
  "INSERT INTO tiers VALUES ('BENCH', 1000000000, 1000000000) ON CONFLICT DO NOTHING; UPDATE api_keys SET tier = 'BENCH';";

/** Runs SQL on the PGlite store of `dataDir`; no service may hold it open meanwhile. */
export async function execPglite(dataDir, sql) {
  const db = await PGlite.create(join(dataDir, "pglite"));
  await db.exec(sql);
  await db.close();
}

/**
 * Creates a user and a GOLD key, then moves every key to the BENCH tier; returns the key.
 * `execSql` runs SQL on the same store as `env` (by default the PGlite store of env.DATA_DIR).
 */
export async function createBenchKey(env, execSql = (sql) => execPglite(env.DATA_DIR, sql)) {
  await runAdmin(["users", "create", "--email", "bench@example.com"], env, "bench password\n");
  const key = await runAdmin(["keys", "create", "--email", "bench@example.com", "--tier", "GOLD"], env);
  await execSql(benchTierSql);
  return key;
}

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Runs `work` with a new database of its own on the test server (its URL and a way to run SQL on it), then drops it. */
export async function withBenchDatabase(work) {
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  const name = `bench_${Date.now()}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    const execSql = async (sql) => {
      const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
      await db.unsafe(sql).simple();
      await db.end();
    };
    return await work(url.toString(), execSql);
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitForPort(port) {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on ${port}`);
}

export const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

/** All processes of a server: the pid and its children (nginx workers). Threads count with their process. */
export function processTree(pid) {
  const children = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).filter((name) => {
    try {
      return readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1].split(" ")[1] === String(pid);
    } catch {
      return false;
    }
  });
  return [pid, ...children.map(Number)];
}

/** The pid and all its descendants (the service, the extraction host, its forks, ffmpeg). */
export function descendants(pid) {
  const parents = new Map();
  for (const name of readdirSync("/proc").filter((each) => /^\d+$/.test(each))) {
    try {
      parents.set(Number(name), Number(readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1].split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** Sums `read(pid)` over the processes, skipping one that has just ended. */
function sumOver(pids, read) {
  return pids.reduce((sum, pid) => {
    try {
      return sum + read(pid);
    } catch {
      return sum;
    }
  }, 0);
}

/** Proportional set size (shared pages split among the processes that share them), in MB, summed. */
export const pssMB = (pids) =>
  sumOver(
    pids,
    (pid) => Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0) / 1024,
  );

/** Resident memory in MB, summed (shared pages counted in each process). */
export const rssMB = (pids) =>
  sumOver(
    pids,
    (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024,
  );

/** Open file descriptors, summed. */
export const openFds = (pids) => sumOver(pids, (pid) => readdirSync(`/proc/${pid}/fd`).length);

/**
 * CPU seconds the processes and their ended children used (utime, stime, cutime, cstime): the
 * service reaps each program it starts, the host each fork, so every job's CPU ends up here.
 */
export const cpuWithChildren = (pids) =>
  sumOver(pids, (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return [11, 12, 13, 14].reduce((total, field) => total + Number(fields[field]), 0) / CLOCK_TICKS;
  });

/**
 * Creates accounts, each with one key of its tier (`{ FREE: 10, GOLD: 4 }`), in the PGlite store
 * of `env`; returns `{ tier, key }` for each. The first goes through the operator's command line,
 * which makes the store; the rest are written in one session, as the CLI writes them (a key is
 * stored as its SHA-256), since a CLI run per account takes seconds on a busy machine.
 */
export async function createAccountKeys(env, counts) {
  await runAdmin(["users", "create", "--email", "bench-0@example.com"], env, "bench password\n");
  const db = await PGlite.create(join(env.DATA_DIR, "pglite"));
  const accounts = [];
  try {
    const { rows } = await db.query("SELECT password_hash FROM accounts WHERE email = 'bench-0@example.com'");
    for (const [tier, count] of Object.entries(counts)) {
      for (let i = 0; i < count; i++) {
        const email = accounts.length === 0 ? "bench-0@example.com" : `bench-${accounts.length}@example.com`;
        if (accounts.length > 0) {
          await db.query("INSERT INTO accounts (email, password_hash) VALUES ($1, $2)", [email, rows[0].password_hash]);
        }
        const key = `xva_${randomBytes(32).toString("base64url")}`;
        await db.query(
          `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, tier, expires_at, created_at)
           SELECT $1, id, 'bench', $2, $3, $4, NULL, now() FROM accounts WHERE email = $5`,
          [randomUUID(), createHash("sha256").update(key).digest("hex"), key.slice(0, 10), tier, email],
        );
        accounts.push({ tier, key });
      }
    }
  } finally {
    await db.close();
  }
  return accounts;
}

/** A value of the service's /metrics, by its series (`name{labels}`); NaN when absent. */
export async function metricValue(serviceUrl, series) {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}

/** CPU seconds (user and system, all threads) the processes have used so far. */
export function cpuSeconds(pids) {
  return pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return sum + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  }, 0);
}

/** Waits (up to 30 s) until the processes use under 2 % of a core over half a second. */
export async function untilIdle(pids) {
  for (let tries = 0; tries < 60; tries++) {
    const before = cpuSeconds(pids);
    await sleep(500);
    if (cpuSeconds(pids) - before < 0.01) return;
  }
}

/** The largest of a /proc status field (VmRSS, VmHWM) over the processes, in MB. */
export function memoryMB(pids, field) {
  return Math.max(...pids.map((pid) => {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : 0;
  }));
}

export const NGINX = "/usr/sbin/nginx";

/** nginx in the foreground with `serverBlock`, its files under `prefix`. */
export function startNginx(prefix, serverBlock) {
  mkdirSync(prefix, { recursive: true });
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  default_type video/mp4;
  client_body_temp_path ${prefix}/client; proxy_temp_path ${prefix}/proxy; fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  ${serverBlock}
}
`,
  );
  const child = spawn(NGINX, ["-p", prefix, "-c", conf, "-g", "daemon off;"], { stdio: "inherit" });
  return { pid: child.pid, stop: () => child.kill("SIGTERM") };
}

/**
 * An origin for relays: nginx sending a sparse file of `bytes` from `dir`/www with sendfile, at
 * almost no CPU, so the origin is not what limits a relay; null where there is no nginx.
 */
export async function startFileOrigin(dir, bytes) {
  if (!existsSync(NGINX)) return null;
  const www = join(dir, "www");
  mkdirSync(www, { recursive: true });
  sparseFile(www, "big.mp4", bytes);
  // nginx's worker runs as nobody: it must reach the file.
  for (const each of [dir, www]) chmodSync(each, 0o755);
  chmodSync(join(www, "big.mp4"), 0o644);
  const port = await freePort();
  const nginx = startNginx(join(dir, "origin"), `server { listen 127.0.0.1:${port}; root ${www}; }`);
  await waitForPort(port);
  return { url: `http://127.0.0.1:${port}`, pid: nginx.pid, stop: nginx.stop };
}

/** A sparse file of `bytes` in `dir`: reading it costs an origin almost nothing but copying page-cache zeros. */
export function sparseFile(dir, name, bytes) {
  const file = join(dir, name);
  const fd = openSync(file, "w");
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return file;
}

const listen = async (server) => {
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    },
  };
};

/** X's syndication API on loopback: every request gets the recorded NASA video post, after `delayMs` as a platform's would. */
export async function startFakeSyndication({ delayMs = 0 } = {}) {
  const fixture = readFileSync(
    new URL("../test/fixtures/upstream/syndication/video_nasa_1491475671058681863.json", import.meta.url),
  );
  const answer = (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": fixture.length });
    res.end(fixture);
  };
  return listen(
    createServer((req, res) => {
      if (delayMs === 0) return answer(res);
      const timer = setTimeout(() => answer(res), delayMs);
      res.on("close", () => clearTimeout(timer));
    }),
  );
}

/**
 * A static site on loopback: `routes` maps a request path to `{ html }` or `{ file, type }`.
 * Files answer Range requests (ffmpeg and curl resume and seek with them); pages come after
 * `pageDelayMs`, as a real platform's do. `heard` is told each request's path and query.
 */
export async function startSite(routes, { pageDelayMs = 0, heard = () => {} } = {}) {
  return listen(
    createServer(async (req, res) => {
      heard(req.url);
      const route = routes[new URL(req.url, "http://site").pathname];
      if (!route) return res.writeHead(404).end();
      // A platform takes its time over a page (pageDelayMs); its CDN serves files at once.
      if (route.html !== undefined && pageDelayMs > 0) await sleep(pageDelayMs);
      if (route.html !== undefined) {
        return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route.html);
      }
      const { size } = statSync(route.file);
      const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
      const start = range?.[1] ? Number(range[1]) : range?.[2] ? Math.max(0, size - Number(range[2])) : 0;
      const end = range?.[1] && range[2] ? Math.min(size - 1, Number(range[2])) : size - 1;
      if (start >= size) return res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      res.writeHead(range ? 206 : 200, {
        "content-type": route.type,
        "content-length": end - start + 1,
        "accept-ranges": "bytes",
        ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
      });
      if (req.method === "HEAD") return res.end();
      createReadStream(route.file, { start, end, highWaterMark: 2 ** 20 }).pipe(res);
    }),
  );
}

/** An H.264/AAC MP4 of `seconds` (640x360 test picture at 1 Mbit/s, a 128 kbit/s tone) with its index first, made in `dir`; returns its path. */
export async function makeClip(dir, seconds) {
  const file = join(dir, `clip${seconds}.mp4`);
  await timedRun("ffmpeg", [
    "-nostdin",
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=640x360:rate=25",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=44100",
    "-t",
    String(seconds),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-b:v",
    "1M",
    "-maxrate",
    "1M",
    "-bufsize",
    "2M",
    "-g",
    "50",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-movflags",
    "+faststart",
    file,
  ]);
  return file;
}

/** startSite routes for a clip made by makeClip: the page `/clip<seconds>.html`, which yt-dlp's generic extractor reads, and its file. */
export function clipRoutes(seconds, file) {
  return {
    [`/clip${seconds}.html`]: {
      html:
        `<!DOCTYPE html><html><head><title>Clip ${seconds} s</title></head><body><video src="/media/clip${seconds}.mp4"></video></body></html>`,
    },
    [`/media/clip${seconds}.mp4`]: { file, type: "video/mp4" },
  };
}

/** One GET on a new connection: ms to the response head, to the first body byte and to the end; bytes. */
export function timedGet(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent: false, headers }, (res) => {
      const head = performance.now() - started;
      let firstByte = NaN;
      let bytes = 0;
      res.on("data", (chunk) => {
        if (!bytes) firstByte = performance.now() - started;
        bytes += chunk.length;
      });
      res.on(
        "end",
        () => resolve({ status: res.statusCode, head, firstByte, total: performance.now() - started, bytes }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** One GET from `localAddress`: its status, ms to its end and bytes; `whole` is false when its body broke off. */
export function getFrom(url, headers, localAddress) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(url, { agent: false, headers, localAddress }, (res) => {
      let bytes = 0;
      res.on("data", (chunk) => (bytes += chunk.length));
      res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started, bytes, whole: true }));
      res.on("error", () => resolve({ status: res.statusCode, ms: performance.now() - started, bytes, whole: false }));
    });
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started, bytes: 0, whole: false }));
    req.end();
  });
}

/** Runs a program to its end: ms to its first byte on stdout and to its exit; bytes written. */
export async function timedRun(command, args) {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  let firstByte = NaN;
  let bytes = 0;
  child.stdout.on("data", (chunk) => {
    if (!bytes) firstByte = performance.now() - started;
    bytes += chunk.length;
  });
  const [code] = await once(child, "close");
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
  return { firstByte, total: performance.now() - started, bytes };
}

/** Downloads with curl into /dev/null: bytes per second, size and the Content-Length header ("" when not sent). */
export function curl(url, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn("curl", [
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{speed_download} %{size_download} %header{content-length}",
      ...extra,
      url,
    ]);
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", () => {
      const [speed, size, contentLength = ""] = out.trim().split(" ");
      Number(size) > 0
        ? resolve({ speed: Number(speed), size: Number(size), contentLength })
        : reject(new Error(`curl ${url} got nothing`));
    });
  });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
      const req = request({
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        headers,
      }, (res) => {
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
