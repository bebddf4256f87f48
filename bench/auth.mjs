// The authenticated path (bearer key, one admission call to the store, a tiny JSON answer)
// against both stores, next to the unauthenticated /healthz of the same server as the reference.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBenchKey, fmt, load, printTable, startService, withBenchDatabase } from "./lib.mjs";

async function measure(store, env) {
  const service = await startService(env);
  try {
    const key = env.KEY;
    const health = await load(`${service.url}/healthz`);
    const authed = await load(`${service.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    return [
      {
        store,
        path: "/healthz",
        "req/s": fmt(health.rps, 0),
        "p50 ms": fmt(health.p50, 2),
        "p99 ms": fmt(health.p99, 2),
        statuses: JSON.stringify(health.statuses),
      },
      {
        store,
        path: "/api/v1/usage",
        "req/s": fmt(authed.rps, 0),
        "p50 ms": fmt(authed.p50, 2),
        "p99 ms": fmt(authed.p99, 2),
        statuses: JSON.stringify(authed.statuses),
      },
    ];
  } finally {
    await service.stop();
  }
}

export async function benchAuth() {
  const rows = [];
  const dataDir = mkdtempSync(join(tmpdir(), "bench-"));
  try {
    const env = { DATA_DIR: dataDir };
    env.KEY = await createBenchKey(env);
    rows.push(...(await measure("pglite", env)));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  await withBenchDatabase(async (DATABASE_URL, execSql) => {
    const env = { DATABASE_URL };
    env.KEY = await createBenchKey(env, execSql);
    rows.push(...(await measure("postgres", env)));
  });
  printTable("Authenticated path (32 connections, 5 s each, one node process serving)", rows);
}
