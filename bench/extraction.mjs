// Extraction (`post?url=<page>`, which runs yt-dlp) with the extraction host against yt-dlp's
// program per request: a cold post (a new URL each time, so no description is kept) against
// `yt-dlp -J` by hand, posts per second with 8 clients on distinct URLs, and the host's memory.
//
//   npm run bench -- extraction        (env: EXTRACTION_BENCH_PAIRS=9, EXTRACTION_BENCH_LOAD_S=10)
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  clipRoutes,
  cpuWithChildren,
  createBenchKey,
  extractionHostPid,
  fmt,
  load,
  makeClip,
  median,
  memoryMB,
  printTable,
  processTree,
  pssMB,
  startService,
  startSite,
  timedGet,
  timedRun,
  untilIdle,
} from "./lib.mjs";

const PAIRS = Number(process.env.EXTRACTION_BENCH_PAIRS ?? 9);
const LOAD_S = Number(process.env.EXTRACTION_BENCH_LOAD_S ?? 10);
const CLIENTS = 8;
/** Issue 23: a cold post through the host takes at most this long, and is this many times faster than yt-dlp -J. */
const TARGET_MS = 100;
const TARGET_FACTOR = 10;

export async function benchExtraction() {
  const temp = mkdtempSync(join(tmpdir(), "bench-extraction-"));
  const stoppers = [];
  try {
    const site = await startSite(clipRoutes(10, await makeClip(temp, 10)));
    stoppers.push(site.close);
    let sequence = 0;
    // A new URL every time: the service keeps no description that would answer it.
    const pageUrl = () => `${site.url}/clip10.html?n=${sequence++}`;
    const env = {
      DATA_DIR: join(temp, "data"),
      EXTRA_PAGE_HOSTS: new URL(site.url).host,
      MAX_EXTRACTIONS: String(2 * CLIENTS),
    };
    const headers = { authorization: `Bearer ${await createBenchKey(env)}` };

    const rows = [];
    const throughput = [];
    for (const mode of ["off", "on"]) {
      const service = await startService({ ...env, EXTRACTION_HOST: mode });
      try {
        const postUrl = () => `${service.url}/api/v1/post?url=${encodeURIComponent(pageUrl())}`;
        const post = async () => {
          const result = await timedGet(postUrl(), headers);
          if (result.status !== 200) throw new Error(`post: status ${result.status}`);
          return result;
        };
        let hostPid;
        if (mode === "on") {
          hostPid = await extractionHostPid(service.url);
          await untilIdle([hostPid]);
          const idleRss = memoryMB([hostPid], "VmRSS");
          // Pairs back to back, so that other load on the machine hits both alike.
          const pairs = [];
          for (let i = 0; i < PAIRS; i++) {
            pairs.push([
              (await post()).total,
              (await timedRun("yt-dlp", ["-J", "--no-playlist", "--no-warnings", pageUrl()])).total,
            ]);
          }
          const host = median(pairs.map(([ms]) => ms));
          const byHand = median(pairs.map(([, ms]) => ms));
          const factor = median(pairs.map(([a, b]) => b / a));
          rows.push({
            what: "cold post (new URL each time) through the host vs yt-dlp -J by hand",
            "host ms": fmt(host, 0),
            "host min-max": `${fmt(Math.min(...pairs.map(([ms]) => ms)), 0)}-${
              fmt(Math.max(...pairs.map(([ms]) => ms)), 0)
            }`,
            "yt-dlp -J ms": fmt(byHand, 0),
            "faster by (median of pairs)": `${fmt(factor, 1)}x`,
            target: `<= ${TARGET_MS} ms and >= ${TARGET_FACTOR}x: ${
              host <= TARGET_MS && factor >= TARGET_FACTOR ? "met" : "NOT met"
            }`,
          });
          rows.push({
            what: "host RSS, idle",
            "host ms": `${fmt(idleRss, 0)} MB`,
            "host min-max": "",
            "yt-dlp -J ms": "",
            "faster by (median of pairs)": "",
            target: "",
          });
        }
        // The host's memory under load, sampled while the clients run.
        let peakHostRss = 0;
        let peakPss = 0;
        const sampler = hostPid
          ? setInterval(() => {
            peakHostRss = Math.max(peakHostRss, memoryMB([hostPid], "VmRSS"));
            peakPss = Math.max(peakPss, pssMB(processTree(hostPid)));
          }, 100)
          : undefined;
        // CPU from the end of the load's warm-up to its end, per post answered meanwhile: unlike
        // posts per second, hardly moved by other load on the machine.
        const accounted = hostPid ? [service.pid, hostPid] : [service.pid];
        let cpuBefore = 0;
        const warmedUp = setTimeout(() => (cpuBefore = cpuWithChildren(accounted)), 1000);
        const result = await load(postUrl, {
          headers,
          connections: CLIENTS,
          durationMs: LOAD_S * 1000,
          warmupMs: 1000,
        });
        const cpuPerPost = (cpuWithChildren(accounted) - cpuBefore) / (result.rps * LOAD_S);
        clearTimeout(warmedUp);
        clearInterval(sampler);
        throughput.push({
          path: mode === "on" ? "extraction host" : "yt-dlp's program per request",
          "posts/s": fmt(result.rps, 1),
          "p50 ms": fmt(result.p50, 0),
          "p99 ms": fmt(result.p99, 0),
          "CPU ms per post (service and its children)": fmt(cpuPerPost * 1000, 0),
          statuses: JSON.stringify(result.statuses),
          "host RSS under load": hostPid
            ? `${fmt(peakHostRss, 0)} MB (host and children, PSS: ${fmt(peakPss, 0)} MB)`
            : "",
        });
      } finally {
        await service.stop();
      }
    }
    const [cli, host] = throughput.map((row) => Number(row["posts/s"]));
    throughput[1]["vs program"] = `${fmt(host / cli, 1)}x`;
    throughput[0]["vs program"] = "";
    const load1 = loadavg()[0];
    printTable(
      `Extraction host (issue 23): cold post, median of ${PAIRS} pairs back to back; load average at the end ${
        fmt(load1, 2)
      }`,
      rows,
    );
    printTable(`Posts per second, ${CLIENTS} clients on distinct URLs for ${LOAD_S} s`, throughput);
  } finally {
    for (const stop of stoppers.reverse()) await stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
