// Capacity at a platform's latency (issue 34): a local platform that answers each page after a set
// time (0, 0.5, 1, 2 s) and serves its clip at once; callers on 8 GOLD accounts, each account from
// an address of its own, post distinct links (posts per second, p99, 429s), then page-mode
// downloads start all at once; the service's process tree's PSS and CPU per post, next to the
// instance's limits and to `yt-dlp -J` run per request with the same concurrency.
//
//   npm run bench -- capacity   (env: CAPACITY_LATENCIES=0,0.5,1,2 CAPACITY_CALLERS=8,32,64
//                                CAPACITY_POSTS_PER_CALLER=3 CAPACITY_YTDLP_LATENCIES=1 CAPACITY_DOWNLOADS=16)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  clipRoutes,
  cpuWithChildren,
  createAccountKeys,
  descendants,
  extractionHostPid,
  fmt,
  getFrom,
  makeClip,
  metricValue,
  printTable,
  pssMB,
  startService,
  startSite,
  timedRun,
  untilIdle,
} from "./lib.mjs";

const list = (text) => text.split(",").map(Number);
const LATENCIES = list(process.env.CAPACITY_LATENCIES ?? "0,0.5,1,2");
const CALLERS = list(process.env.CAPACITY_CALLERS ?? "8,32,64");
const POSTS_PER_CALLER = Number(process.env.CAPACITY_POSTS_PER_CALLER ?? 3);
const YTDLP_LATENCIES = list(process.env.CAPACITY_YTDLP_LATENCIES ?? "1");
const DOWNLOADS = Number(process.env.CAPACITY_DOWNLOADS ?? 16);
const ACCOUNTS = 8;
/** Issue 34's targets, at 32 callers and 1 s latency. */
const TARGET = { postsPerSec: 20, p99Ms: 3000, pssMB: 600, latency: 1, callers: 32, idlePssMB: 200 };

/** Caller `i`'s key and address: the callers are spread over the accounts, each account on its own address. */
const callerOf = (keys, i) => ({
  headers: { authorization: `Bearer ${keys[i % keys.length]}` },
  from: `127.0.3.${(i % keys.length) + 1}`,
});

/** `callers` workers doing `perCaller` jobs each, one after the other; posts per second, p99 and what each job gave. */
async function burst(callers, perCaller, job) {
  const results = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: callers }, async (_, caller) => {
    for (let n = 0; n < perCaller; n++) results.push(await job(caller));
  }));
  const seconds = (performance.now() - started) / 1000;
  const sorted = results.map((each) => each.ms).sort((a, b) => a - b);
  const statuses = {};
  for (const { status } of results) statuses[status] = (statuses[status] ?? 0) + 1;
  return {
    perSec: results.length / seconds,
    p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))],
    statuses,
    results,
    seconds,
  };
}

const isChooser = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "host-chooser";
  } catch {
    return false;
  }
};

/** The tree's PSS in MB: the service, the extraction host (with its chooser), the host's forks (its workers and children of single jobs) and every other child (watchdogs, programs). */
function treePss(servicePid, hostPid) {
  const [, ...below] = descendants(hostPid);
  const host = [hostPid, ...below.filter(isChooser)];
  const forks = below.filter((pid) => !host.includes(pid));
  const tree = descendants(servicePid);
  const split = { service: pssMB([servicePid]), host: pssMB(host), forks: pssMB(forks), count: forks.length };
  return {
    ...split,
    total: pssMB(tree),
    others: pssMB(tree.filter((pid) => pid !== servicePid && !host.includes(pid) && !forks.includes(pid))),
  };
}

/** Runs `work` while sampling the service's tree; returns its result with the peak PSS (and its parts then) and the CPU seconds the tree used. */
async function measured(servicePid, hostPid, work) {
  const tree = descendants(servicePid);
  const cpuBefore = cpuWithChildren(tree);
  let peak = treePss(servicePid, hostPid);
  const sampler = setInterval(() => {
    const now = treePss(servicePid, hostPid);
    if (now.total > peak.total) peak = now;
  }, 250);
  try {
    const result = await work();
    // Processes started during the run and still alive (the host's workers) have not been reaped
    // into their parent's figures yet: their whole life is in the run.
    const born = descendants(servicePid).filter((pid) => !tree.includes(pid));
    return { ...result, peakPss: peak.total, peak, cpu: cpuWithChildren(tree) - cpuBefore + cpuWithChildren(born) };
  } finally {
    clearInterval(sampler);
  }
}

const partsOf = (peak) =>
  `${fmt(peak.service, 0)}, ${fmt(peak.host, 0)}, ${fmt(peak.forks, 0)} (${peak.count}), ${fmt(peak.others, 0)}`;
const met = (ok) => (ok ? "met" : "NOT met");

export async function benchCapacity() {
  const temp = mkdtempSync(join(tmpdir(), "bench-capacity-"));
  const stoppers = [];
  try {
    const clip = await makeClip(temp, 4);
    const sites = new Map();
    for (const latency of LATENCIES) {
      const site = await startSite(clipRoutes(4, clip), { pageDelayMs: latency * 1000 });
      stoppers.push(site.close);
      sites.set(latency, site);
    }
    const env = {
      DATA_DIR: join(temp, "data"),
      EXTRA_PAGE_HOSTS: [...sites.values()].map((site) => new URL(site.url).host).join(","),
    };
    const keys = (await createAccountKeys(env, { GOLD: ACCOUNTS })).map(({ key }) => key);
    const service = await startService(env);
    stoppers.push(service.stop);
    const hostPid = await extractionHostPid(service.url);
    let sequence = 0;
    const pageUrl = (latency) => `${sites.get(latency).url}/clip4.html?n=${sequence++}`;
    const api = (operation, latency) =>
      `${service.url}/api/v1/${operation}?url=${encodeURIComponent(pageUrl(latency))}`;

    const limits = [];
    for (const kind of ["extractions", "remuxes", "encodes", "directDownloads"]) {
      limits.push({
        kind,
        "slots of this instance": await metricValue(service.url, `media_api_slots_limit{kind="${kind}"}`),
      });
    }
    printTable("Capacity (issue 34): the instance's limits (MEMORY_BUDGET_MB and CPUs of this machine)", limits);
    await untilIdle([service.pid, hostPid]);
    const rest = treePss(service.pid, hostPid);
    printTable(`The tree at rest, the host warm; load average ${fmt(loadavg()[0], 1)}`, [
      {
        "service PSS MB": fmt(rest.service, 0),
        "host (and its chooser) PSS MB": fmt(rest.host, 0),
        "others MB": fmt(rest.others, 0),
        "tree MB": fmt(rest.total, 0),
        target: `<= ${TARGET.idlePssMB}: ${met(rest.total <= TARGET.idlePssMB)}`,
      },
    ]);

    for (const latency of LATENCIES) {
      // A table per latency, printed as soon as it is measured.
      const rows = [];
      for (const callers of CALLERS) {
        const posts = await measured(service.pid, hostPid, () =>
          burst(callers, POSTS_PER_CALLER, (caller) => {
            const { headers, from } = callerOf(keys, caller);
            return getFrom(api("post", latency), headers, from);
          }));
        const ytdlp = YTDLP_LATENCIES.includes(latency)
          ? await burst(callers, 1, async () => {
            const started = performance.now();
            await timedRun("yt-dlp", ["-J", "--no-playlist", "--no-warnings", pageUrl(latency)]);
            return { status: 200, ms: performance.now() - started };
          })
          : null;
        const targeted = latency === TARGET.latency && callers === TARGET.callers;
        rows.push({
          "latency s": latency,
          callers,
          posts: posts.results.length,
          "posts/s": fmt(posts.perSec, 1),
          "p99 ms": fmt(posts.p99, 0),
          statuses: JSON.stringify(posts.statuses),
          "tree PSS peak MB": fmt(posts.peakPss, 0),
          "then: service, host, forks (n), others": partsOf(posts.peak),
          "CPU ms/post": fmt((posts.cpu * 1000) / posts.results.length, 0),
          "yt-dlp -J posts/s, p99 ms": ytdlp ? `${fmt(ytdlp.perSec, 1)}, ${fmt(ytdlp.p99, 0)}` : "",
          target: targeted
            ? `>= ${TARGET.postsPerSec}/s: ${met(posts.perSec >= TARGET.postsPerSec)}; p99 < ${TARGET.p99Ms}: ${
              met(posts.p99 < TARGET.p99Ms)
            }; no 429: ${met(!posts.statuses[429])}; PSS < ${TARGET.pssMB}: ${met(posts.peakPss < TARGET.pssMB)}`
            : "",
        });
      }
      printTable(
        `Posts of distinct links, pages after ${latency} s, ${POSTS_PER_CALLER} per caller, callers on ${ACCOUNTS} GOLD accounts (one address each); load average ${
          fmt(loadavg()[0], 1)
        }`,
        rows,
      );
    }

    const latency = LATENCIES.includes(TARGET.latency) ? TARGET.latency : LATENCIES[0];
    const downloads = await measured(service.pid, hostPid, () =>
      burst(DOWNLOADS, 1, (caller) => {
        const { headers, from } = callerOf(keys, caller);
        return getFrom(api("download", latency), headers, from);
      }));
    const served = downloads.results.filter((each) => each.status === 200);
    const whole = served.filter((each) => each.whole && each.bytes === served[0].bytes);
    printTable(
      `Page-mode downloads at once (${DOWNLOADS}, ${DOWNLOADS / ACCOUNTS} per account), pages after ${latency} s`,
      [
        {
          downloads: DOWNLOADS,
          statuses: JSON.stringify(downloads.statuses),
          "whole files": `${whole.length} (${served[0]?.bytes ?? 0} bytes each)`,
          "all done in s": fmt(downloads.seconds, 1),
          "tree PSS peak MB": fmt(downloads.peakPss, 0),
          "then: service, host, forks (n), others": partsOf(downloads.peak),
          target: `all 200 with whole files: ${met(whole.length === DOWNLOADS)}`,
        },
      ],
    );
  } finally {
    for (const stop of stoppers.reverse()) await stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
