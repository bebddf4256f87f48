// Jobs (docs/api.md, Jobs) on PostgreSQL: a job of 1000 links to a local X whose every answer
// comes after 1 s, in items per second on one instance and on two sharing the database, next to
// the same links as 1000 `post` calls from a client that paces itself (32 at a time, as many as
// a key's job items run); a GOLD key's `post` p99 while a PRO job of 1000 runs; and the time from
// a job's end to its webhook's arrival, on one instance and on two (job-webhooks.mjs).
import { setTimeout as sleep } from "node:timers/promises";
import { benchJobFairness } from "./job-fairness.mjs";
import { startTimingReceiver, webhookLatency } from "./job-webhooks.mjs";
import { fmt, load, printTable, runAdmin, startFakeSyndication, startService, withBenchDatabase } from "./lib.mjs";

const LINKS = 1000;
const PLATFORM_LATENCY_MS = 1000;
const linkOf = (n) => `https://x.com/NASA/status/${String(7_000_000_000_000_000_000n + BigInt(n))}`;

export async function benchJobs() {
  await benchJobFairness();
  const upstream = await startFakeSyndication({ delayMs: PLATFORM_LATENCY_MS });
  const receiver = await startTimingReceiver();
  try {
    await withBenchDatabase(async (databaseUrl) => {
      const env = {
        DATABASE_URL: databaseUrl,
        X_SYNDICATION_URL: upstream.url,
        X_GRAPHQL_URL: "off",
        WEBHOOK_EXTRA_HOSTS: receiver.endpoint,
      };
      const first = await startService(env);
      const second = await startService(env);
      try {
        await runAdmin(["users", "create", "--email", "jobs@example.com"], env, "bench password\n");
        const key = (tier) => runAdmin(["keys", "create", "--email", "jobs@example.com", "--tier", tier], env);
        // Each job its own links: a post X answered before is kept, and would cost nothing.
        const one = await timedJob(first.url, await key("GOLD"), 0, second);
        const two = await timedJob(first.url, await key("GOLD"), 10_000);
        const paced = await pacedPosts(first.url, await key("GOLD"));
        const interactive = await postWhileJobRuns(first.url, await key("PRO"), await key("GOLD"));
        printTable(`Jobs (PostgreSQL; ${LINKS} links, the platform answers each after ${PLATFORM_LATENCY_MS} ms)`, [
          { what: "job, one instance", "items/s": fmt(one, 1), target: ">= 20" },
          { what: "job, two instances", "items/s": fmt(two, 1), target: `>= ${fmt(one * 1.7, 1)} (1.7x one)` },
          { what: "1000 post calls, client paces itself (32 at once)", "items/s": fmt(paced, 1), target: "reference" },
          {
            what: "GOLD post p99 while a PRO job of 1000 runs",
            "items/s": `p99 ${fmt(interactive.p99, 0)} ms, ${JSON.stringify(interactive.statuses)}`,
            target: "< 3000 ms",
          },
        ]);
        const hooks = { receiver, linkOf };
        const alone = await webhookLatency({
          ...hooks,
          urls: [first.url],
          key: await key("GOLD"),
          offset: 30_000,
          paused: second,
        });
        const both = await webhookLatency({
          ...hooks,
          urls: [first.url, second.url],
          key: await key("GOLD"),
          offset: 31_000,
        });
        printTable("A job's end to its webhook's arrival (PostgreSQL; one-link jobs, 4 at a time, 60 per row)", [
          {
            what: "one instance",
            p50: `${fmt(alone.p50, 0)} ms`,
            p99: `${fmt(alone.p99, 0)} ms`,
            target: "p99 < 2000 ms",
          },
          {
            what: "two instances",
            p50: `${fmt(both.p50, 0)} ms`,
            p99: `${fmt(both.p99, 0)} ms`,
            target: "p99 < 2000 ms",
          },
        ]);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    });
  } finally {
    await Promise.all([upstream.close(), receiver.close()]);
  }
}

/** Posts a job of LINKS links (from `offset`) and waits for it to complete; items per second. `paused` is an instance kept from work meanwhile. */
async function timedJob(url, key, offset, paused) {
  if (paused) process.kill(paused.pid, "SIGSTOP");
  try {
    const started = performance.now();
    const job = await submit(url, key, LINKS, offset);
    await completed(url, key, job.id);
    return LINKS / ((performance.now() - started) / 1000);
  } finally {
    if (paused) process.kill(paused.pid, "SIGCONT");
  }
}

async function submit(url, key, links, offset) {
  const answer = await fetch(`${url}/api/v1/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ urls: Array.from({ length: links }, (_, at) => linkOf(offset + at + 1)) }),
  });
  if (answer.status !== 202) throw new Error(`POST /api/v1/jobs answered ${answer.status}: ${await answer.text()}`);
  return answer.json();
}

async function completed(url, key, id) {
  for (;;) {
    const job = await (await fetch(`${url}/api/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } })).json();
    if (job.status === "completed" || job.status === "failed") return job;
    await sleep(250);
  }
}

/** The same links as `post` calls, 32 at a time; calls per second. */
async function pacedPosts(url, key) {
  const headers = { authorization: `Bearer ${key}` };
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < LINKS) {
      const n = 2_000 + next++;
      const answer = await fetch(`${url}/api/v1/post?url=${encodeURIComponent(linkOf(n))}`, { headers });
      await answer.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return LINKS / ((performance.now() - started) / 1000);
}

/** A GOLD key's `post` latency (8 at a time, posts never seen) while a PRO job of LINKS runs. */
async function postWhileJobRuns(url, jobKey, goldKey) {
  const job = await submit(url, jobKey, LINKS, 5_000);
  await sleep(2_000);
  const result = await load((n) => `${url}/api/v1/post?url=${encodeURIComponent(linkOf(20_000 + n))}`, {
    headers: { authorization: `Bearer ${goldKey}` },
    connections: 8,
    durationMs: 15_000,
  });
  await completed(url, jobKey, job.id);
  return result;
}
