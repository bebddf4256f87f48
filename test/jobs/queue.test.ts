// pg-boss on the service's own store connection (src/queue/queue.ts), on both stores: its schema is
// made at start, jobs sent inside a store transaction exist exactly when that transaction commits,
// and a job that asks to run again is retried a bounded number of times. Workers are woken, not
// polled: with a poll of a minute, a job sent (here, or on another instance of the server's
// store), the next job of a busy worker, a job that waited until it is due and a job's retry all
// run in seconds.
import { afterEach, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const settings = { retries: 2, retryDelayS: 1, heartbeatS: 10, pollS: 2 };

describe.each(storeKinds)("the queue on %s", (kind) => {
  let store: TestStore;
  let queue: Queue;
  afterEach(async () => {
    await queue?.stop();
    await store?.close();
  });

  test("runs each job sent, and only those of a transaction that committed", { timeout: scaled(60_000) }, async () => {
    store = await openTestStore(kind);
    queue = await startQueue(store.db, { ...settings, schema: store.queueSchema }, (error) => {
      throw error;
    });
    const [schema] = await store.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1",
      [store.queueSchema],
    );
    expect(schema!.n).toBeGreaterThan(0);
    const ran: number[] = [];
    await queue.work<{ n: number }>({
      queue: "test-runs",
      concurrency: 4,
      run: async ({ n }) => {
        ran.push(n);
        return true;
      },
    });
    await queue.send("test-runs", [1, 2, 3].map((n) => ({ data: { n } })));
    await store.db.transaction(async (tx) => {
      await queue.send("test-runs", [{ data: { n: 4 } }], tx);
    });
    await store.db
      .transaction(async (tx) => {
        await queue.send("test-runs", [{ data: { n: 5 } }], tx);
        throw new Error("rolled back");
      })
      .catch(() => {});
    await until("the four committed jobs to run", () => ran.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(ran.sort()).toEqual([1, 2, 3, 4]);
  });

  test("retries a job that asks to, at most `retries` times", { timeout: scaled(60_000) }, async () => {
    store = await openTestStore(kind);
    queue = await startQueue(store.db, { ...settings, schema: store.queueSchema }, (error) => {
      throw error;
    });
    const attempts: { retries: number; last: boolean }[] = [];
    await queue.work<object>({
      queue: "test-retries",
      concurrency: 1,
      run: async (_, attempt) => {
        attempts.push(attempt);
        return attempt.last;
      },
    });
    await queue.send("test-retries", [{ data: {} }]);
    await until("the last attempt", () => attempts.some((each) => each.last), 30_000);
    expect(attempts).toEqual([
      { retries: 0, last: false },
      { retries: 1, last: false },
      { retries: 2, last: true },
    ]);
  });

  test("wakes its workers for a job sent, the next job of a busy one and a job that waited, with a poll of a minute", {
    timeout: scaled(60_000),
  }, async () => {
    store = await openTestStore(kind);
    const slow = { ...settings, pollS: 60, schema: store.queueSchema };
    const fail = (error: Error) => {
      throw error;
    };
    // On PostgreSQL, the worker is another instance's: the job is sent on one connection, run on another.
    const sender = await startQueue(store.db, slow, fail);
    queue = kind === "postgres" ? await startQueue(store.connectAgain(), slow, fail) : sender;
    const ran: { n: number; at: number }[] = [];
    await queue.work<{ n: number }>({
      queue: "test-wakes",
      concurrency: 1,
      run: async ({ n }) => {
        ran.push({ n, at: Date.now() });
        return true;
      },
    });
    // Its first ask, at start, found nothing: from now on only a wake brings it back within the minute.
    const sent = Date.now();
    await sender.send("test-wakes", [1, 2, 3, 4].map((n) => ({ data: { n } })));
    // A job that waits is woken on the instance that sent it, which in the service works every queue.
    await queue.send("test-wakes", [{ data: { n: 5 }, startAfterS: 2 }]);
    await until("the five jobs run", () => ran.length === 5, 40_000);
    expect(ran.map((each) => each.n).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(ran.find((each) => each.n === 5)!.at - sent).toBeGreaterThanOrEqual(2_000);
    if (sender !== queue) await sender.stop();
  });

  test("runs a job's retry when it is due, with a poll of a minute", { timeout: scaled(60_000) }, async () => {
    store = await openTestStore(kind);
    queue = await startQueue(store.db, { ...settings, pollS: 60, schema: store.queueSchema }, (error) => {
      throw error;
    });
    const ran: { retries: number; at: number }[] = [];
    await queue.work<object>({
      queue: "test-retry-wakes",
      concurrency: 1,
      run: async (_, { retries }) => {
        ran.push({ retries, at: Date.now() });
        return retries > 0;
      },
    });
    await queue.send("test-retry-wakes", [{ data: {} }]);
    // The first retry's pause is 1 to 2 s (retryDelayS, with jitter); the poll would take it a minute late.
    await until("the retry", () => ran.length === 2, 20_000);
    expect(ran.map((each) => each.retries)).toEqual([0, 1]);
    expect(ran[1]!.at - ran[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  test("a key at its tier's share does not hold another key's job, whatever it has queued", {
    timeout: scaled(60_000),
  }, async () => {
    store = await openTestStore(kind);
    // A poll of a minute: a worker that fetched a job it may not run waits that long before it asks again.
    queue = await startQueue(store.db, { ...settings, pollS: 60, schema: store.queueSchema }, (error) => {
      throw error;
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    await queue.work<{ name: string }>({
      queue: "test-groups",
      concurrency: 2,
      groups: { perTier: { FREE: 1, GOLD: 2 }, otherwise: 1 },
      run: async ({ name }) => {
        ran.push(name);
        if (name.startsWith("free")) await held;
        return true;
      },
    });
    const free = { id: "free-key", tier: "FREE" };
    await queue.send("test-groups", [{ data: { name: "free-1" }, group: free }]);
    await until("the FREE key's first job to run", () => ran.includes("free-1"));
    // The FREE key holds its share; its queued jobs come before the GOLD key's in the queue's order.
    await queue.send("test-groups", [2, 3, 4, 5].map((n) => ({ data: { name: `free-${n}` }, group: free })));
    await queue.send("test-groups", [{ data: { name: "gold" }, group: { id: "gold-key", tier: "GOLD" } }]);
    try {
      await until(
        "the GOLD key's job to run while the FREE key's first still holds its share",
        () => ran.includes("gold"),
        20_000,
      );
      expect(ran).toEqual(["free-1", "gold"]);
    } finally {
      release();
    }
    await until("the FREE key's jobs to run, one at a time", () => ran.length === 6);
  });

  test("a key's later turns come after another key's first, where both are below their share", {
    timeout: scaled(60_000),
  }, async () => {
    store = await openTestStore(kind);
    queue = await startQueue(store.db, { ...settings, pollS: 60, schema: store.queueSchema }, (error) => {
      throw error;
    });
    const releases = new Map<string, () => void>();
    const ran: string[] = [];
    await queue.work<{ name: string }>({
      queue: "test-turns",
      concurrency: 2,
      groups: { perTier: { GOLD: 2 }, otherwise: 1 },
      run: async ({ name }) => {
        ran.push(name);
        await new Promise<void>((resolve) => releases.set(name, resolve));
        return true;
      },
    });
    const a = { id: "key-a", tier: "GOLD" };
    // Key A's six jobs in turns of its share (2): two run, four wait with lower priorities.
    await queue.send(
      "test-turns",
      [0, 1, 2, 3, 4, 5].map((n) => ({
        data: { name: `a-${n}` },
        group: a,
        priority: -Math.floor(n / 2),
      })),
    );
    await until("key A's first turn to run", () => ran.length === 2);
    await queue.send("test-turns", [{ data: { name: "b-0" }, group: { id: "key-b", tier: "GOLD" }, priority: 0 }]);
    releases.get(ran[0]!)!();
    await until("the next job to run", () => ran.length === 3);
    expect(ran[2]).toBe("b-0");
    await until("every job to run", () => {
      for (const release of releases.values()) release();
      return ran.length === 7;
    });
  });

  test("a job that comes again runs when due, in its lane and group at its priority, and spends no retry", {
    timeout: scaled(60_000),
  }, async () => {
    store = await openTestStore(kind);
    queue = await startQueue(store.db, { ...settings, pollS: 60, schema: store.queueSchema }, (error) => {
      throw error;
    });
    const ran: { n: number; retries: number; at: number }[] = [];
    await queue.work<{ n: number }>({
      queue: "test-again",
      concurrency: 2,
      groups: { perTier: { GOLD: 2 }, otherwise: 1 },
      run: async ({ n }, { retries }) => {
        ran.push({ n, retries, at: Date.now() });
        return n < 3 ? { againInS: 1, data: { n: n + 1 } } : true;
      },
    });
    await queue.send("test-again", [{ data: { n: 0 }, group: { id: "key-a", tier: "GOLD" }, priority: -4 }]);
    // More comings again than retries (2): a wait is not a failure.
    await until("the job's fourth run", () => ran.length === 4, 30_000);
    expect(ran.map(({ n, retries }) => ({ n, retries }))).toEqual([0, 1, 2, 3].map((n) => ({ n, retries: 0 })));
    for (let at = 1; at < ran.length; at += 1) expect(ran[at]!.at - ran[at - 1]!.at).toBeGreaterThanOrEqual(1_000);
    const runs = await store.db.query<{ name: string; group_id: string; group_tier: string; priority: number }>(
      `SELECT name, group_id, group_tier, priority FROM ${store.queueSchema}.job WHERE name LIKE 'test-again%'`,
    );
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      expect(run).toEqual({ name: "test-again/gold", group_id: "key-a", group_tier: "GOLD", priority: -4 });
    }
  });

  test("a job whose instance died during its last attempt runs again, told it is the last, and settles", {
    timeout: scaled(120_000),
  }, async () => {
    store = await openTestStore(kind);
    const once = { ...settings, retries: 0, schema: store.queueSchema };
    const fail = (error: Error) => {
      throw error;
    };
    // The first instance takes the job and stops answering for it, as one killed would.
    const dying = await startQueue(store.db, once, fail);
    let taken = () => {};
    const tookIt = new Promise<void>((resolve) => (taken = resolve));
    await dying.work<object>({
      queue: "test-crash",
      concurrency: 1,
      run: () => {
        taken();
        return new Promise<boolean>(() => {});
      },
    });
    await dying.send("test-crash", [{ data: {} }]);
    await tookIt;
    await dying.stop();
    queue = await startQueue(kind === "postgres" ? store.connectAgain() : store.db, once, fail);
    const attempts: { retries: number; last: boolean }[] = [];
    await queue.work<object>({
      queue: "test-crash",
      concurrency: 1,
      run: async (_, attempt) => {
        attempts.push(attempt);
        return true;
      },
    });
    // Once its heartbeat (10 s) lapses, the job is run again rather than failed with nothing told.
    await until("the job to run again on the other instance", () => attempts.length > 0, 60_000);
    expect(attempts[0]).toEqual({ retries: 1, last: true });
    await until("the job to be settled", async () => {
      const [job] = await store.db.query<{ state: string }>(
        `SELECT state FROM ${store.queueSchema}.job WHERE name = 'test-crash'`,
      );
      return job?.state === "completed";
    });
  });
});
