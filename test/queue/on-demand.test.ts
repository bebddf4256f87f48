// This instance's workers start when the queue holds work (src/queue/on-demand.ts): not at a start
// on an empty queue; at once for a job left waiting from before; for a job this instance sends,
// also inside a transaction; and, on PostgreSQL, for a job another instance sent, which has no
// workers of its own (it stopped, or never had work), at once by the store's NOTIFY, else within the
// check's period.
import { afterEach, describe, expect, test } from "vitest";
import { workersOnDemand } from "../../src/queue/on-demand.ts";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const settings = { retries: 2, retryDelayS: 1, heartbeatS: 10, pollS: 60 };
const fail = (error: Error) => {
  throw error;
};

describe.each(storeKinds)("the workers on demand on %s", (kind) => {
  let store: TestStore;
  const queues: Queue[] = [];
  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.stop();
    await store?.close();
  });

  /** The queue on `db`, its workers on demand, and what its one worker ran. */
  const instance = async (db = store.db, everyS = 1) => {
    const queue = await startQueue(db, { ...settings, schema: store.queueSchema }, fail);
    queues.push(queue);
    const workers = workersOnDemand(queue, { everyS, onError: fail });
    const ran: number[] = [];
    const work = () =>
      workers.queue.work<{ n: number }>({
        queue: "test-demand",
        concurrency: 2,
        run: async ({ n }) => {
          ran.push(n);
          return true;
        },
      });
    return { queue, workers, ran, work };
  };

  test("start no workers on an empty queue; a job sent starts them, also inside a transaction", {
    timeout: scaled(60_000),
  }, async () => {
    store = await openTestStore(kind);
    const { workers, ran, work } = await instance();
    await workers.begin(work);
    // Past a few of the check's periods, with nothing queued.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(workers.started()).toBe(false);
    await workers.queue.prepare("test-demand");
    await store.db.transaction((tx) => workers.queue.send("test-demand", [{ data: { n: 1 } }], tx));
    await until("the job sent to run", () => ran.length === 1, 30_000);
    expect(workers.started()).toBe(true);
    await workers.queue.send("test-demand", [{ data: { n: 2 } }]);
    await until("the next job to run", () => ran.length === 2, 30_000);
    expect(ran).toEqual([1, 2]);
  });

  test("start the workers at once for a job left waiting from before", { timeout: scaled(60_000) }, async () => {
    store = await openTestStore(kind);
    const before = await instance();
    await before.queue.send("test-demand", [{ data: { n: 7 } }]);
    const { workers, ran, work } = await instance();
    await workers.begin(work);
    expect(workers.started()).toBe(true);
    await until("the waiting job to run", () => ran.length === 1, 30_000);
    expect(ran).toEqual([7]);
  });

  test.runIf(kind === "postgres")(
    "start the workers for a job another instance sent",
    { timeout: scaled(60_000) },
    async () => {
      store = await openTestStore(kind);
      const { workers, ran, work } = await instance();
      await workers.begin(work);
      expect(workers.started()).toBe(false);
      // Another instance, with no workers of its own, puts a job on the queue.
      const other = await instance(store.connectAgain());
      await other.queue.send("test-demand", [{ data: { n: 3 } }]);
      await until("the other instance's job to run here", () => ran.length === 1, 30_000);
      expect(ran).toEqual([3]);
      expect(other.workers.started()).toBe(false);
    },
  );

  test.runIf(kind === "postgres")(
    "start the workers as soon as another instance sends a job, not at the next check",
    { timeout: scaled(60_000) },
    async () => {
      store = await openTestStore(kind);
      // A check of a minute: only the store's NOTIFY can start these workers within the bound below.
      const { workers, ran, work } = await instance(store.db, 60);
      await workers.begin(work);
      expect(workers.started()).toBe(false);
      const other = await instance(store.connectAgain());
      await other.queue.send("test-demand", [{ data: { n: 4 } }]);
      await until("the other instance's job to run here, long before the check", () => ran.length === 1, 10_000);
      expect(ran).toEqual([4]);
    },
  );
});
