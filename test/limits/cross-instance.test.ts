// Several service processes share one PostgreSQL: the quota and the burst stay exact across them.
// Two app instances, each with its own connection pool and HTTP server, take one burst of
// concurrent requests at the limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer } from "../../src/runtime/serve.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

describe("two instances on one PostgreSQL", () => {
  let store: TestStore;
  let servers: RunningServer[];
  beforeAll(async () => {
    store = await openTestStore("postgres");
    servers = await Promise.all(
      [store.connectAgain(), store.connectAgain()].map((db) =>
        serveNode(buildTestApp(db).app, {
          port: 0,
          hostname: "127.0.0.1",
        })
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await store.close();
  });

  async function burst(key: string, count: number): Promise<number[]> {
    const calls = Array.from(
      { length: count },
      (_, i) =>
        fetch(`${servers[i % 2]!.address}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
        ),
    );
    return Promise.all(calls);
  }

  const counted = async (id: string) =>
    (await store.db.query<{ n: number }>(
      "SELECT coalesce(sum(count), 0)::integer AS n FROM usage_minutes WHERE api_key_id = $1",
      [id],
    ))[0]!.n;

  it("admits exactly the daily limit when a burst crosses it", async () => {
    const key = await makeKey(store.db, "PRO");
    // 9 995 requests made earlier today, outside the burst window: five remain.
    await store.db.query(
      "INSERT INTO usage_minutes (api_key_id, minute, count) VALUES ($1, date_trunc('minute', now()) - interval '2 hours', 9995)",
      [key.id],
    );
    const statuses = await burst(key.plain, 40);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    expect(await counted(key.id)).toBe(10_000);
  });

  it("admits exactly the burst allowance in 60 s", async () => {
    const key = await makeKey(store.db, "FREE");
    const statuses = await burst(key.plain, 30);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(await counted(key.id)).toBe(10);
  });
});
