// The tweet operation with a warm cache (one post asked again and again) and a cold one (every
// request a post never seen, so each one is a call to the fake upstream on loopback), next to
// /healthz of the same server as the reference.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBenchKey, fmt, load, printTable, startFakeSyndication, startService } from "./lib.mjs";

export async function benchTweet() {
  const upstream = await startFakeSyndication();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-tweet-"));
  const env = { DATA_DIR: dataDir, X_SYNDICATION_URL: upstream.url, X_GRAPHQL_URL: "off" };
  try {
    const key = await createBenchKey(env);
    const service = await startService(env);
    try {
      const headers = { authorization: `Bearer ${key}` };
      const tweet = (id) => `${service.url}/api/v1/tweet?url=${encodeURIComponent(`https://x.com/NASA/status/${id}`)}`;
      const rows = [
        ["/healthz (reference)", await load(`${service.url}/healthz`)],
        ["tweet, warm cache", await load(tweet("1491475671058681863"), { headers })],
        ["tweet, cold cache", await load((n) => tweet(String(1_000_000_000_000_000_000n + BigInt(n))), { headers })],
      ].map(([what, r]) => ({
        what,
        "req/s": fmt(r.rps, 0),
        "p50 ms": fmt(r.p50, 2),
        "p99 ms": fmt(r.p99, 2),
        statuses: JSON.stringify(r.statuses),
      }));
      printTable(
        "Tweet operation (PGlite store, 32 connections, 5 s each; fake syndication upstream on loopback)",
        rows,
      );
    } finally {
      await service.stop();
    }
  } finally {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
