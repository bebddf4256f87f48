// A database server that cannot be reached: every call is a fast 503 store_unavailable with
// Retry-After, and the service recovers by itself when the server is back.
import { connect, createServer, type Server, type Socket } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/store/db.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, TEST_DATABASE_URL, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";
import { settled } from "../helpers/until.ts";

/**
 * A TCP forwarder to the test server that can be switched off. Off, it cuts the connections it
 * holds, and accepts new ones only to close them cleanly, as a TCP proxy with no database behind
 * it does (docker's port forward, for one): the case the driver alone would retry for ever.
 */
async function startSwitch(target: URL): Promise<{ port: number; down(value: boolean): void; close(): Promise<void> }> {
  let isDown = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (isDown) {
      client.resume();
      client.end();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    down(value) {
      isDown = value;
      if (value) { for (const socket of sockets) socket.destroy(); }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("an unreachable database server", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("postgres");
  });
  afterAll(() => store?.close());

  it("makes 20 concurrent calls a fast 503 store_unavailable with Retry-After, not a 500", async () => {
    const db = openPostgres(`postgres://postgres@127.0.0.1:${await closedPort()}/test`);
    const { get } = buildTestApp(db);
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => get("/api/v1/usage", `xva_${"a".repeat(43)}`)),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const response of responses) {
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("2");
      expect((await response.json()).code).toBe("store_unavailable");
    }
    await db.close();
  });

  it("recovers by itself when the server is back", async () => {
    const key = await makeKey(store.db, "GOLD");
    const target = new URL(TEST_DATABASE_URL);
    const lever = await startSwitch(target);
    const via = new URL(TEST_DATABASE_URL);
    via.hostname = "127.0.0.1";
    via.port = String(lever.port);
    const db = store.connectAgain(via.toString());
    const { get } = buildTestApp(db);
    try {
      expect((await get("/api/v1/usage", key.plain)).status).toBe(200);
      lever.down(true);
      // Once the driver has seen its connection close, the next call must connect anew.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      const refused = await get("/api/v1/usage", key.plain);
      expect(refused.status).toBe(503);
      expect((await refused.json()).code).toBe("store_unavailable");
      expect(Date.now() - started).toBeLessThan(5_000);
      lever.down(false);
      expect(await settled(async () => (await get("/api/v1/usage", key.plain)).status === 200, 10_000, 250)).toBe(true);
    } finally {
      lever.down(true);
      await lever.close();
    }
  });

  it("waits out a call that a lock holds past the answer deadline, where the server answers, instead of calling it gone", async () => {
    const table = `lock_wait_${process.pid}`;
    const db = openPostgres(TEST_DATABASE_URL);
    const other = postgres(TEST_DATABASE_URL, { max: 2, onnotice: () => {} });
    let release = () => {};
    try {
      await db.exec(`create table ${table} (id int primary key, n int not null); insert into ${table} values (1, 0)`);
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = other.begin(async (tx) => {
        await tx.unsafe(`select * from ${table} where id = 1 for update`);
        locked();
        await released;
      });
      await lockTaken;
      const held = db.query(`update ${table} set n = n + 1 where id = 1 returning n`);
      // The call has waited on the lock for longer than the 3 s answer deadline.
      await expect.poll(async () =>
        (await other.unsafe(
          `select count(*)::int as waiting from pg_stat_activity
            where wait_event_type = 'Lock' and query like 'update ${table}%' and now() - query_start > interval '4 s'`,
        ))[0]!.waiting, { timeout: scaled(20_000), interval: 200 }).toBe(1);
      release();
      await holder;
      expect(await held).toEqual([{ n: 1 }]);
      expect(await db.query("select 1 as one")).toEqual([{ one: 1 }]);
    } finally {
      release();
      await db.exec(`drop table if exists ${table}`).catch(() => {});
      await db.close();
      await other.end();
    }
  });
});
