// Two instances of the built service on one PostgreSQL share the job queue: the instance running
// a job of 200 links is killed with SIGKILL halfway, and the job completes on the other with every
// item done once and counted once against the key.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openPostgres } from "../../src/store/db.ts";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { makeKey } from "../helpers/app.ts";
import { type RunningService, startService } from "../helpers/service.ts";
import { createTestDatabase } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

describe("two instances on one PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  let x: FakeXUpstream;
  const services: RunningService[] = [];

  beforeAll(async () => {
    [database, x] = await Promise.all([createTestDatabase(), startFakeXUpstream()]);
  });
  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await x?.close();
    await database?.drop();
  });

  test("a job whose instance is killed halfway completes on the other, each item done and counted once", {
    timeout: scaled(240_000),
  }, async () => {
    x.setMode("syndication", { kind: "delay", ms: 1000 });
    const env = { DATABASE_URL: database.url, X_SYNDICATION_URL: x.syndicationUrl, X_GRAPHQL_URL: "off" };
    const first = await startService(env);
    services.push(first);
    const second = await startService(env);
    services.push(second);
    const db = openPostgres(database.url);
    try {
      const key = await makeKey(db, "GOLD", { now: new Date() });
      const urls = Array.from({ length: 200 }, (_, at) => `https://x.com/nasa/status/${numberedPostId(at + 1)}`);
      const created = await fetch(`${first.url}/api/v1/jobs`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.plain}`, "content-type": "application/json" },
        body: JSON.stringify({ urls }),
      });
      expect(created.status).toBe(202);
      const { id } = (await created.json()) as { id: string };
      const settled = async () =>
        (await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM job_items WHERE job_id = $1 AND status IN ('done', 'failed')",
          [id],
        ))[0]!.n;
      await until("half the items to be settled", async () => (await settled()) >= 100, 120_000);
      first.child.kill("SIGKILL");
      await until("the job to complete on the other instance", async () => {
        const [job] = await db.query<{ status: string }>("SELECT status FROM jobs WHERE id = $1", [id]);
        return job!.status === "completed";
      }, 180_000).catch(async (error) => {
        // What the job and the other instance were doing, for a failure seen only on a loaded machine.
        const rows = await db.query("SELECT status, count(*)::int AS n FROM job_items WHERE job_id = $1 GROUP BY 1", [
          id,
        ]);
        const [job] = await db.query("SELECT status, links_read, expanded_at FROM jobs WHERE id = $1", [id]);
        const queued = await db.query("SELECT name, state, count(*)::int AS n FROM pgboss.job GROUP BY 1, 2");
        throw new Error(
          `${error.message}: ${JSON.stringify({ job, items: rows, queued })}\n${second.output.slice(-30).join("\n")}`,
        );
      });
      const items = await db.query<{ status: string; counted: boolean; id: string }>(
        "SELECT status, counted_at IS NOT NULL AS counted, post->>'id' AS id FROM job_items WHERE job_id = $1 ORDER BY position",
        [id],
      );
      expect(items.map((item) => item.status)).toEqual(urls.map(() => "done"));
      expect(items.map((item) => item.id)).toEqual(urls.map((_, at) => numberedPostId(at + 1)));
      expect(items.every((item) => item.counted)).toBe(true);
      // The POST and each of the 200 items: nothing counted twice.
      const [usage] = await db.query<{ n: number }>(
        "SELECT coalesce(sum(count), 0)::int AS n FROM usage_minutes WHERE api_key_id = $1",
        [key.id],
      );
      expect(usage!.n).toBe(201);
    } finally {
      await db.close();
    }
  });
});
