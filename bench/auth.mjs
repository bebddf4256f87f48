// The authenticated path (bearer key, one admission call to the store, a tiny JSON answer)
// against both stores, next to the unauthenticated /healthz of the same server as the reference.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { createBenchKey, fmt, load, printTable, startService } from "./lib.mjs";

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function measure(store, env) {
  const service = await startService(env);
  try {
    const key = env.KEY;
    const health = await load(`${service.url}/healthz`);
    const authed = await load(`${service.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    return [
      { store, path: "/healthz", "req/s": fmt(health.rps, 0), "p50 ms": fmt(health.p50, 2), "p99 ms": fmt(health.p99, 2), statuses: JSON.stringify(health.statuses) },
      { store, path: "/api/v1/usage", "req/s": fmt(authed.rps, 0), "p50 ms": fmt(authed.p50, 2), "p99 ms": fmt(authed.p99, 2), statuses: JSON.stringify(authed.statuses) },
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

  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  const name = `bench_${Date.now()}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    const env = { DATABASE_URL: url.toString() };
    env.KEY = await createBenchKey(env, async (sql) => {
      const db = postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} });
      await db.unsafe(sql).simple();
      await db.end();
    });
    rows.push(...(await measure("postgres", env)));
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  printTable("Authenticated path (32 connections, 5 s each, one node process serving)", rows);
}
