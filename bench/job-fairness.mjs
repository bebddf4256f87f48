// Jobs of several customers side by side on one instance (PostgreSQL), against a local site whose
// pages answer after 1 s (a host the operator added, read by yt-dlp): another account's one-link
// GOLD job while a FREE key has 9 jobs of 50 page links queued; a 100-link page job's first item,
// its end and how many times yt-dlp read each link (the site's requests of its pages); a GOLD
// `post` p99 alone and while another account's job of 1000 page links runs.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  clipRoutes,
  extractionHostPid,
  fmt,
  load,
  makeClip,
  printTable,
  runAdmin,
  startService,
  startSite,
  withBenchDatabase,
} from "./lib.mjs";

const PAGE_LATENCY_MS = 1000;

export async function benchJobFairness() {
  const temp = await mkdtemp(join(tmpdir(), "bench-job-fairness-"));
  const asked = new Map();
  const site = await startSite(clipRoutes(4, await makeClip(temp, 4)), {
    pageDelayMs: PAGE_LATENCY_MS,
    heard: (path) => asked.set(path, (asked.get(path) ?? 0) + 1),
  });
  const page = (name) => `${site.url}/clip4.html?${name}`;
  try {
    await withBenchDatabase(async (databaseUrl) => {
      const env = { DATABASE_URL: databaseUrl, EXTRA_PAGE_HOSTS: new URL(site.url).host };
      const service = await startService(env);
      try {
        const key = async (tier) => {
          const email = `fair-${tier}-${crypto.randomUUID()}@example.com`;
          await runAdmin(["users", "create", "--email", email], env, "bench password\n");
          return runAdmin(["keys", "create", "--email", email, "--tier", tier], env);
        };
        const api = apiOf(service.url);
        const postKey = await key("GOLD");
        const posts = (from) => (n) => `${service.url}/api/v1/post?url=${encodeURIComponent(page(`post=${from + n}`))}`;
        // Measured warm, as the service runs once its extraction host is up: the first calls run yt-dlp cold.
        await extractionHostPid(service.url);
        await load(posts(50_000), { headers: api.auth(postKey), connections: 4, durationMs: 3_000 });
        const alone = await load(posts(0), { headers: api.auth(postKey), connections: 4, durationMs: 15_000 });
        const flood = await key("FREE");
        for (let job = 0; job < 9; job += 1) {
          await api.submit(flood, Array.from({ length: 50 }, (_, n) => page(`flood=${job}-${n}`)));
        }
        const gold = await key("GOLD");
        const started = performance.now();
        const one = await api.submit(gold, [page("one")]);
        await api.ended(gold, one.id);
        const oneS = (performance.now() - started) / 1000;
        const hundred = await hundredLinks(api, await key("GOLD"), page, asked);
        const big = await key("PRO");
        const thousand = await api.submit(big, Array.from({ length: 1000 }, (_, n) => page(`big=${n}`)));
        await sleep(3_000);
        const during = await load(posts(100_000), { headers: api.auth(postKey), connections: 4, durationMs: 15_000 });
        await api.cancel(big, thousand.id);
        printTable(`Jobs side by side (PostgreSQL; pages answer after ${PAGE_LATENCY_MS} ms; one instance)`, [
          {
            what: "one-link GOLD job while a FREE key has 9 jobs of 50 pages queued",
            figure: `${fmt(oneS, 1)} s`,
            target: "<= 10 s",
            anchor: "10 min 35 s",
          },
          {
            what: "100-link page job: first item settled",
            figure: `${fmt(hundred.firstS, 1)} s`,
            target: "<= 5 s",
            anchor: "about 5 min",
          },
          {
            what: "100-link page job: completed",
            figure: `${fmt(hundred.endS, 1)} s`,
            target: "<= 60 s",
            anchor: "about 5 min",
          },
          {
            what: "100-link page job: yt-dlp runs per link",
            figure: fmt(hundred.readsPerLink, 2),
            target: "1",
            anchor: "2",
          },
          {
            what: "GOLD post p99 alone (4 at once)",
            figure: `${fmt(alone.p99, 0)} ms ${JSON.stringify(alone.statuses)}`,
            target: "reference",
            anchor: "0.44-0.55 s",
          },
          {
            what: "GOLD post p99 while a PRO job of 1000 pages runs",
            figure: `${fmt(during.p99, 0)} ms ${JSON.stringify(during.statuses)}`,
            target: `<= ${fmt(alone.p99 * 1.5, 0)} ms (1.5x alone)`,
            anchor: "2.9-6.4 s",
          },
        ]);
      } finally {
        await service.stop();
      }
    });
  } finally {
    await site.close();
    await rm(temp, { recursive: true, force: true });
  }
}

/** A GOLD job of 100 pages never read before: seconds to its first settled item and to its end, and the site's requests per page. */
async function hundredLinks(api, gold, page, asked) {
  const urls = Array.from({ length: 100 }, (_, n) => page(`hundred=${n}`));
  const started = performance.now();
  const job = await api.submit(gold, urls);
  let firstS = null;
  for (;;) {
    const shown = await api.show(gold, job.id);
    if (firstS === null && shown.items.some((item) => item.status === "done" || item.status === "failed")) {
      firstS = (performance.now() - started) / 1000;
    }
    if (["completed", "failed", "cancelled"].includes(shown.status)) break;
    await sleep(250);
  }
  const endS = (performance.now() - started) / 1000;
  const reads = urls.map((url) => asked.get(new URL(url).pathname + new URL(url).search) ?? 0);
  return { firstS, endS, readsPerLink: reads.reduce((a, b) => a + b, 0) / urls.length };
}

/** The jobs' operations of the service at `url`, for a key. */
function apiOf(url) {
  const auth = (key) => ({ authorization: `Bearer ${key}` });
  const call = async (key, path, init = {}) => {
    const answer = await fetch(`${url}${path}`, {
      ...init,
      headers: { ...auth(key), "content-type": "application/json" },
    });
    if (answer.status >= 300) {
      throw new Error(`${init.method ?? "GET"} ${path} answered ${answer.status}: ${await answer.text()}`);
    }
    return answer.json();
  };
  return {
    auth,
    submit: (key, urls) => call(key, "/api/v1/jobs", { method: "POST", body: JSON.stringify({ urls }) }),
    show: (key, id) => call(key, `/api/v1/jobs/${id}`),
    cancel: (key, id) => call(key, `/api/v1/jobs/${id}`, { method: "DELETE" }),
    async ended(key, id) {
      for (;;) {
        const job = await call(key, `/api/v1/jobs/${id}`);
        if (["completed", "failed", "cancelled"].includes(job.status)) return job;
        await sleep(250);
      }
    },
  };
}
