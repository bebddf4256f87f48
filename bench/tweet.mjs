// The tweet operation with a warm cache (one post asked again and again) and a cold one (every
// request a post never seen, so each one is a call to the fake upstream on loopback), next to
// /healthz of the same server as the reference.
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { fmt, load, printTable, runAdmin, startService } from "./lib.mjs";

const fixture = readFileSync(resolve(process.cwd(), "../shared/fixtures/upstream/syndication/video_nasa_1491475671058681863.json"));

/** Answers every syndication request with the recorded NASA video post. */
async function startUpstream() {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": fixture.length });
    res.end(fixture);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

export async function benchTweet() {
  const upstream = await startUpstream();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-tweet-"));
  const env = { DATA_DIR: dataDir, X_SYNDICATION_URL: upstream.url, X_GRAPHQL_URL: "off" };
  try {
    await runAdmin(["users", "create", "--email", "bench@example.com"], env, "bench password\n");
    const key = await runAdmin(["keys", "create", "--email", "bench@example.com", "--tier", "GOLD"], env);
    // A tier with limits no benchmark reaches, so every call takes the admitted path.
    const db = await PGlite.create(join(dataDir, "pglite"));
    await db.exec("INSERT INTO tiers VALUES ('BENCH', 1000000000, 1000000000); UPDATE api_keys SET tier = 'BENCH';");
    await db.close();

    const service = await startService(env);
    try {
      const headers = { authorization: `Bearer ${key}` };
      const tweet = (id) => `${service.url}/api/v1/tweet?url=${encodeURIComponent(`https://x.com/NASA/status/${id}`)}`;
      const rows = [
        ["/healthz (reference)", await load(`${service.url}/healthz`)],
        ["tweet, warm cache", await load(tweet("1491475671058681863"), { headers })],
        ["tweet, cold cache", await load((n) => tweet(String(1_000_000_000_000_000_000n + BigInt(n))), { headers })],
      ].map(([what, r]) => ({ what, "req/s": fmt(r.rps, 0), "p50 ms": fmt(r.p50, 2), "p99 ms": fmt(r.p99, 2), statuses: JSON.stringify(r.statuses) }));
      printTable("Tweet operation (PGlite store, 32 connections, 5 s each; fake syndication upstream on loopback)", rows);
    } finally {
      await service.stop();
    }
  } finally {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
