// The embedded store on a thread of its own (Bun's service runs it so): the same answers, errors
// and transactions as PGlite in the service's thread, through the bundled worker the global setup
// built (dist/pglite-worker.mjs).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAccount } from "../../src/store/accounts.ts";
import { admitRequest, createApiKey } from "../../src/store/api-keys.ts";
import { type Db, StoreUnavailableError } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openPgliteThread } from "../../src/store/pglite-thread.ts";
import { sha256Hex } from "../../src/util/bytes.ts";
import { scaled } from "../helpers/slowness.ts";

const worker = path.resolve("dist/pglite-worker.mjs");
const template = path.resolve("dist/pglite-template");

describe("PGlite on a thread of its own", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "pglite-thread-"));
  let db: Db;

  beforeAll(async () => {
    cpSync(template, path.join(dir, "pglite"), { recursive: true });
    db = await openPgliteThread(path.join(dir, "pglite"), worker);
    await migrate(db);
    await db.exec("CREATE TABLE t (id int PRIMARY KEY, at timestamptz, note text, ok boolean)");
  }, scaled(60_000));
  afterAll(async () => {
    await db?.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  test("answers a query with its parameters and Postgres's types", async () => {
    const at = new Date("2026-11-23T10:00:00.123Z");
    await db.query("INSERT INTO t VALUES ($1, $2, $3, $4)", [1, at, "one", true]);
    expect(await db.query("SELECT * FROM t WHERE id = $1", [1])).toEqual([{ id: 1, at, note: "one", ok: true }]);
    expect(await db.query("SELECT * FROM t WHERE id = $1", [2])).toEqual([]);
  });

  test("a failed statement rejects with Postgres's message and code, and the store goes on", async () => {
    const error = await db.query("INSERT INTO t (id) VALUES (1)").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "23505", message: expect.stringContaining("duplicate key") });
    await expect(db.exec("SELEC 1")).rejects.toMatchObject({ code: "42601" });
    expect(await db.query("SELECT count(*)::int AS n FROM t")).toEqual([{ n: 1 }]);
  });

  test("a transaction commits what its work did and returns the work's value", async () => {
    const value = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id, note) VALUES ($1, $2)", [10, "ten"]);
      await tx.exec("INSERT INTO t (id, note) VALUES (11, 'eleven')");
      return (await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM t WHERE id >= 10"))[0]!.n;
    });
    expect(value).toBe(2);
    expect(await db.query("SELECT id FROM t WHERE id >= 10 ORDER BY id")).toEqual([{ id: 10 }, { id: 11 }]);
  });

  test("a transaction whose work throws is rolled back and rethrows that very error", async () => {
    const thrown = new Error("the work failed");
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES (20)");
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES (21)");
        await tx.query("INSERT INTO t (id) VALUES (21)");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await db.query("SELECT id FROM t WHERE id IN (20, 21)")).toEqual([]);
  });

  test("a call made while a transaction is open waits for it, as on one connection", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES (30)");
      inside();
      await held;
    });
    // The call below is made once the transaction is open, however long the thread took to open it.
    await opened;
    let seen: unknown = null;
    const outside = db.query("SELECT count(*)::int AS n FROM t WHERE id = 30").then((rows) => (seen = rows));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toBeNull();
    release();
    await Promise.all([transaction, outside]);
    expect(seen).toEqual([{ n: 1 }]);
  });

  test("admits requests exactly up to a key's burst limit when they come at once", async () => {
    const now = new Date();
    const account = (await createAccount(db, "thread@example.com", "hash"))!;
    const { plain } = await createApiKey(db, {
      accountId: account.id,
      name: "k",
      tier: "FREE",
      expiresInDays: null,
      now,
    });
    const hash = await sha256Hex(plain);
    const admissions = await Promise.all(Array.from({ length: 20 }, () => admitRequest(db, hash, now)));
    // FREE: a burst of 10 (migration 001).
    expect(admissions.filter((each) => each.outcome === "admitted")).toHaveLength(10);
    expect(admissions.filter((each) => each.outcome === "burst")).toHaveLength(10);
  });

  test("passes on what a channel hears to its listener, until the listener closes", async () => {
    const heard: string[] = [];
    let subscribed = 0;
    const listening = await db.listen("thread_heard", (payload) => heard.push(payload), () => subscribed++);
    expect(subscribed).toBe(1);
    await db.query("SELECT pg_notify('thread_heard', 'one')");
    await expect.poll(() => heard).toEqual(["one"]);
    await listening.close();
    await db.query("SELECT pg_notify('thread_heard', 'two')");
    // The thread answers in order: what it heard for the second NOTIFY would have come before this answer.
    await db.query("SELECT 1");
    expect(heard).toEqual(["one"]);
  });

  test("after close, every call fails as a store that is unavailable", async () => {
    const other = path.join(dir, "closed");
    cpSync(template, other, { recursive: true });
    const closing = await openPgliteThread(other, worker);
    expect(await closing.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await closing.close();
    await expect(closing.query("SELECT 1")).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  test("a thread that dies fails the call it was on and every later one as a store that is unavailable", async () => {
    // Says it is open, then ends at the first call, as a crashed store would.
    const dying = path.join(dir, "dying-worker.mjs");
    writeFileSync(
      dying,
      'import { parentPort } from "node:worker_threads";\nparentPort.postMessage({ id: 0 });\nparentPort.on("message", () => process.exit(3));\n',
    );
    const lost = await openPgliteThread(path.join(dir, "unused"), dying);
    const first = await lost.query("SELECT 1").catch((error: unknown) => error);
    expect(first).toBeInstanceOf(StoreUnavailableError);
    expect(String(first)).toMatch(/exit code 3/);
    await expect(lost.transaction(async () => 1)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  test("a folder PGlite cannot open rejects the opening, and the thread is gone", async () => {
    const notAFolder = path.join(dir, "a-file");
    writeFileSync(notAFolder, "not a database");
    await expect(openPgliteThread(notAFolder, worker)).rejects.toThrow();
  });
});
