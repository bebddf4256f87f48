// The time from a job's end to its webhook's arrival (docs/api.md, Webhooks): a receiver in this
// process takes each job.completed and measures its arrival against the job's `finishedAt` (the
// instance's clock, the same machine's), for one-link jobs posted a few at a time.
import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** Jobs measured per row, posted this many at a time. */
const JOBS = 60;
const AT_ONCE = 4;

/** A receiver on this machine: WEBHOOK_EXTRA_HOSTS must name `endpoint` before the services start. */
export async function startTimingReceiver() {
  const arrivals = new Map();
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    const arrived = Date.now();
    const event = JSON.parse(body);
    if (event.type === "job.completed") arrivals.set(event.data.id, arrived - Date.parse(event.data.finishedAt));
    response.writeHead(204).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    endpoint: `127.0.0.1:${port}`,
    arrivals,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * p50 and p99 of JOBS jobs' end-to-webhook times; each job is posted to `urls` in turn, of one
 * link from `linkOf(offset + n)`. `paused` is an instance kept from work meanwhile (SIGSTOP).
 */
export async function webhookLatency({ urls, key, receiver, linkOf, offset, paused }) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const hook = await (await fetch(`${urls[0]}/api/v1/webhooks`, {
    method: "POST",
    headers,
    body: JSON.stringify({ url: receiver.url, events: ["job.completed"] }),
  })).json();
  if (paused) process.kill(paused.pid, "SIGSTOP");
  try {
    const ids = [];
    for (let n = 0; n < JOBS; n += AT_ONCE) {
      const batch = await Promise.all(Array.from({ length: AT_ONCE }, async (_, at) => {
        const answer = await fetch(`${urls[(n + at) % urls.length]}/api/v1/jobs`, {
          method: "POST",
          headers,
          body: JSON.stringify({ urls: [linkOf(offset + n + at)], webhook: hook.id }),
        });
        if (answer.status !== 202) {
          throw new Error(`POST /api/v1/jobs answered ${answer.status}: ${await answer.text()}`);
        }
        return (await answer.json()).id;
      }));
      ids.push(...batch);
      // The next few once these have arrived: the row measures delivery, not a queue of jobs.
      while (!batch.every((id) => receiver.arrivals.has(id))) await sleep(20);
    }
    const times = ids.map((id) => receiver.arrivals.get(id)).sort((a, b) => a - b);
    const at = (p) => times[Math.min(times.length - 1, Math.floor(times.length * p))];
    return { p50: at(0.5), p99: at(0.99), max: times.at(-1) };
  } finally {
    if (paused) process.kill(paused.pid, "SIGCONT");
  }
}
