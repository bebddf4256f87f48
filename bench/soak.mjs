// A soak (issue 32 item 8): mixed load from 20 clients on three tiers, each client an account of
// its own on an address of its own, for 10 minutes; the service's process tree (the service, the
// extraction host and its forks, ffmpeg) sampled every 10 s for its RSS, open descriptors and
// children. Prints start, peak and end of each, and whether it still grows at the end.
//
//   npm run bench -- soak      (env: SOAK_DURATION_S=600 SOAK_SAMPLE_S=10)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  clipRoutes,
  createAccountKeys,
  descendants,
  extractionHostPid,
  fmt,
  getFrom,
  makeClip,
  openFds,
  printTable,
  rssMB,
  startFakeSyndication,
  startService,
  startSite,
} from "./lib.mjs";

const DURATION_S = Number(process.env.SOAK_DURATION_S ?? 600);
const SAMPLE_S = Number(process.env.SOAK_SAMPLE_S ?? 10);
/** 20 clients: the tiers a public instance sees most of first. */
const CLIENTS = { FREE: 10, PRO: 6, GOLD: 4 };
/** A measure still grows when its trend over the second half would add this share of its mean per 10 minutes. */
const GROWTH_SHARE = 0.05;

/** The mix each client draws from: what a caller of this API does, by weight. */
function operations(serviceUrl, siteUrl, next) {
  const page = (query) => encodeURIComponent(`${siteUrl}/clip4.html${query}`);
  return [
    { weight: 3, url: () => `${serviceUrl}/api/v1/usage` },
    { weight: 3, url: () => `${serviceUrl}/api/v1/post?url=${page("")}` },
    { weight: 2, url: () => `${serviceUrl}/api/v1/post?url=${page(`?n=${next()}`)}` },
    {
      weight: 2,
      url: () =>
        `${serviceUrl}/api/v1/tweet?url=${encodeURIComponent(`https://x.com/NASA/status/1491475671058681863`)}`,
    },
    { weight: 1, url: () => `${serviceUrl}/api/v1/download?url=${page("")}` },
    { weight: 1, url: () => `${serviceUrl}/api/v1/download?url=${page("")}&audio=mp3` },
  ];
}

/** Least-squares slope of `values` per sample. */
function slope(values) {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((a, b) => a + b, 0) / n;
  const num = values.reduce((sum, y, x) => sum + (x - meanX) * (y - meanY), 0);
  const den = values.reduce((sum, _, x) => sum + (x - meanX) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** Start, peak and end of one measure, and whether its second half still rises. */
function summary(what, values, unit) {
  const half = values.slice(Math.floor(values.length / 2));
  const mean = half.reduce((a, b) => a + b, 0) / half.length;
  const per10Min = slope(half) * (600 / SAMPLE_S);
  const grows = half.length >= 3 && per10Min > GROWTH_SHARE * mean;
  return {
    measure: what,
    start: `${fmt(values[0], 0)} ${unit}`,
    peak: `${fmt(Math.max(...values), 0)} ${unit}`,
    end: `${fmt(values.at(-1), 0)} ${unit}`,
    "trend over the second half": `${per10Min >= 0 ? "+" : ""}${fmt(per10Min, 1)} ${unit} per 10 min`,
    "still grows": grows ? "yes" : "no",
  };
}

export async function benchSoak() {
  const temp = mkdtempSync(join(tmpdir(), "bench-soak-"));
  const stoppers = [];
  try {
    const site = await startSite(clipRoutes(4, await makeClip(temp, 4)), { pageDelayMs: 500 });
    stoppers.push(site.close);
    const syndication = await startFakeSyndication();
    stoppers.push(syndication.close);
    const env = {
      DATA_DIR: join(temp, "data"),
      EXTRA_PAGE_HOSTS: new URL(site.url).host,
      X_SYNDICATION_URL: syndication.url,
      X_GRAPHQL_URL: "off",
    };
    const clients = await createAccountKeys(env, CLIENTS);
    const service = await startService(env);
    stoppers.push(service.stop);
    await extractionHostPid(service.url);
    let sequence = 0;
    const mix = operations(service.url, site.url, () => sequence++).flatMap((op) => Array(op.weight).fill(op));

    const samples = [];
    const sample = () => {
      const tree = descendants(service.pid);
      samples.push({ rss: rssMB(tree), fds: openFds(tree), children: tree.length - 1 });
    };
    sample();
    const sampler = setInterval(sample, SAMPLE_S * 1000);
    const statuses = {};
    let broken = 0;
    const until = performance.now() + DURATION_S * 1000;
    await Promise.all(clients.map(async ({ tier, key }, i) => {
      const headers = { authorization: `Bearer ${key}` };
      while (performance.now() < until) {
        const { status, whole } = await getFrom(
          mix[Math.floor(Math.random() * mix.length)].url(),
          headers,
          `127.0.4.${i + 1}`,
        );
        statuses[`${tier} ${status}`] = (statuses[`${tier} ${status}`] ?? 0) + 1;
        if (!whole) broken += 1;
      }
    }));
    clearInterval(sampler);
    sample();

    const calls = Object.values(statuses).reduce((a, b) => a + b, 0);
    const errors = Object.entries(statuses).filter(([name]) => / 5\d\d$| 0$/.test(name)).reduce(
      (sum, [, n]) => sum + n,
      0,
    );
    printTable(
      `Soak (issue 32): ${calls} calls in ${DURATION_S} s from ${clients.length} clients (FREE ${CLIENTS.FREE}, PRO ${CLIENTS.PRO}, GOLD ${CLIENTS.GOLD}); ${errors} 5xx or no answer, ${broken} broken bodies; the service's tree every ${SAMPLE_S} s`,
      [
        summary("RSS (summed)", samples.map((each) => each.rss), "MB"),
        summary("open descriptors", samples.map((each) => each.fds), ""),
        summary("children", samples.map((each) => each.children), ""),
      ],
    );
    console.log(`statuses by tier: ${JSON.stringify(statuses)}`);
  } finally {
    for (const stop of stoppers.reverse()) await stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
