// The queue every instance shares: pg-boss (an engine others maintain and operators know) on the
// store the service already opened, through its own connection rather than a second pool. The
// queue carries only ids; the rows of jobs and job_items are the truth (src/jobs/store.ts). This
// is the one module that speaks to pg-boss: the events (webhook deliveries, schedules) become
// queues here too.
import { PgBoss } from "pg-boss";
import type { Db as IDatabase, JobResult, JobWithMetadata } from "pg-boss";
import type { Db, Queryable } from "../store/db.ts";
import { inSchemaTurn } from "../store/migrate.ts";

/** The queue's own schema, beside the service's tables; `admin` sees it as it sees them. */
export const QUEUE_SCHEMA = "pgboss";

// pg-boss sends its schema scripts as one text `BEGIN; ...; COMMIT;` without parameters.
const TRANSACTION_SCRIPT = /^\s*BEGIN;([\s\S]*)COMMIT;\s*$/;

/**
 * pg-boss's database over the service's `Db`: a statement with parameters as a query, a script as
 * one, and a script that is a transaction inside the store's own transaction, so it runs on one
 * connection of the pool (postgres.js) or under the embedded store's lock (PGlite) and rolls back
 * there when it fails, leaving no connection in an aborted transaction. The store's LISTEN is its
 * `listen`, with which pg-boss wakes the workers of a queue as a job is put on it, and tells
 * `notified` so (on any instance: the store's NOTIFY).
 */
export function queueDb(db: Db | Queryable, notified: () => void = () => {}): IDatabase {
  return {
    executeSql: async (text, values) => {
      if (values !== undefined && values.length > 0) return { rows: await db.query(text, values) };
      const transaction = TRANSACTION_SCRIPT.exec(text);
      if (transaction === null || !("transaction" in db)) return { rows: await db.exec(text) };
      return { rows: await db.transaction((tx) => tx.exec(transaction[1]!)) };
    },
    ...("listen" in db
      ? {
        listen: (channel, heard, resubscribed) =>
          db.listen(channel, (payload) => {
            heard(payload);
            notified();
          }, resubscribed),
      }
      : {}),
  };
}

/** What a queue's worker is handed: the data each job was sent with. */
export interface QueueWork<Data> {
  /** The ids each instance works on together: `group` caps how many of one group run at once here. */
  queue: string;
  /**
   * Jobs run at once on this instance, on each lane when there are `groups`: each by a worker of its
   * own, which asks for one job at a time.
   */
  concurrency: number;
  /** How many jobs of one group (a key, for fairness) run at once here, by the group's tier: a lane per tier. */
  groups?: { perTier: Readonly<Record<string, number>>; otherwise: number };
  /**
   * Runs one job: true when settled, false when it should run again after a retry's pause (a retry
   * can help), or `again`: it waits (for a slot, or for a platform's rest) and comes again then, in
   * its lane and group, with its data, spending no retry. `last`: a failure now is not retried.
   */
  run(data: Data, attempt: { retries: number; last: boolean }): Promise<boolean | Again<Data>>;
}

/** A job that is to come again in `inS` seconds, carrying `data`: a wait, not a failure. */
export interface Again<Data> {
  againInS: number;
  data: Data;
}

/**
 * Attempts a job gets beyond its retries, which only an instance that died during one spends: the
 * queue runs the job again after its heartbeat lapses, and a job whose last attempt died would
 * otherwise be failed by pg-boss with nothing told (a job left `running` for ever). The attempts
 * past the retries are all `last`, so the run settles there.
 */
const CRASH_ATTEMPTS = 2;

export interface QueueSettings {
  /** The queue's schema, QUEUE_SCHEMA unless tests that share one database give each store its own. */
  schema?: string;
  /** Attempts after the first of a job that asks to be run again, each after a growing pause. */
  retries: number;
  /** The first pause before a retry, in seconds; it doubles (pg-boss's backoff, with jitter). */
  retryDelayS: number;
  /** A job whose instance stops saying it works on it (it died) is run again after this long. */
  heartbeatS: number;
  /**
   * How often an idle worker asks for jobs, in seconds (at least 0.5), where nothing wakes it: a
   * job put on the queue wakes its workers on every instance (the store's LISTEN/NOTIFY), and a job
   * that waited (`startAfter`, a retry's pause) wakes one on the instance that sent or ran it when it
   * is due, so this bounds only how late such a job is taken when that instance stopped, and how
   * late any job is where the store cannot listen.
   */
  pollS: number;
}

export interface Queue {
  /** Puts jobs on `queue`, inside `tx` when given (so they exist exactly when the rows written there do). */
  send(
    queue: string,
    jobs: readonly { data: object; group?: { id: string; tier: string }; startAfterS?: number; priority?: number }[],
    tx?: Queryable,
  ): Promise<void>;
  /** Makes `queue` now, so that a later `send` inside a transaction need not (on PGlite that waits for the transaction). */
  prepare(queue: string): Promise<void>;
  work<Data extends object>(work: QueueWork<Data>): Promise<void>;
  /** Whether any queue holds a job that waits, waits for a retry or runs, on any instance. */
  pending(): Promise<boolean>;
  /** Has every worker of this instance ask for a job now (one whose wake came before it was there). */
  wakeAll(): void;
  /**
   * Tells `listener` each time a job is put on any queue, by any instance (the store's NOTIFY, which
   * PostgreSQL sends across instances): where this instance runs no workers yet, it starts them.
   */
  onSent(listener: () => void): void;
  stop(): Promise<void>;
}

/**
 * Starts pg-boss on `db`: its schema is made (or migrated) now, after the service's migrations and
 * under the same lock as theirs, so instances that start together do not both make it.
 */
export async function startQueue(db: Db, settings: QueueSettings, onError: (error: Error) => void): Promise<Queue> {
  const sentListeners = new Set<() => void>();
  const boss = newBoss(db, settings, () => {
    for (const listener of sentListeners) listener();
  });
  boss.on("error", onError);
  await inSchemaTurn(db, () => boss.start());
  const made = new Set<string>();
  const retries = retryWaker(boss, db, settings.retryDelayS, onError);
  const queueNamed = async (name: string) => {
    if (made.has(name)) return;
    const options = {
      retryLimit: settings.retries + CRASH_ATTEMPTS,
      retryDelay: settings.retryDelayS,
      retryBackoff: true,
      heartbeatSeconds: Math.max(10, settings.heartbeatS),
      notify: true,
    };
    await boss.createQueue(name, options);
    // A queue made by an earlier version keeps its options; this brings them to today's.
    await boss.updateQueue(name, options);
    made.add(name);
  };
  return {
    prepare: queueNamed,
    async send(queue, jobs, tx) {
      // Nothing to send makes no queue: making one goes outside `tx`, which on PGlite waits for `tx` to end.
      for (const [lane, laneJobs] of byLane(queue, jobs)) {
        await queueNamed(lane);
        await insertInto(boss, lane, laneJobs, tx);
      }
    },
    async work<Data extends object>(work: QueueWork<Data>) {
      for (const { lane, concurrency, groupShare } of lanesOf(work)) {
        await queueNamed(lane);
        await boss.work(
          lane,
          {
            batchSize: 1,
            localConcurrency: concurrency,
            pollingIntervalSeconds: settings.pollS,
            notifyPollingIntervalSeconds: settings.pollS,
            perJobResults: true,
            includeMetadata: true,
            ...(groupShare === undefined ? {} : { localGroupConcurrency: groupShare }),
          },
          // A worker that ran a job asks for the next at once, instead of waiting out its poll; a job that
          // asks to run again wakes a worker here when its retry is due.
          (jobs: JobWithMetadata<Data>[]) =>
            Promise.all(jobs.map(async (job) => {
              const last = job.retryCount >= settings.retries;
              const result = await settled(boss, lane, job, work, last);
              if (result.status === "failed" && !last) retries.wake(lane, job.id);
              return result;
            })).finally(() => wakeBusy(boss, lane)),
        );
      }
    },
    pending: () => pendingIn(db, settings.schema ?? QUEUE_SCHEMA),
    wakeAll() {
      for (const worker of boss.getWipData()) boss.notifyWorker(worker.id);
    },
    onSent: (listener) => sentListeners.add(listener),
    stop: () => {
      retries.stop();
      return boss.stop({ graceful: true, close: false, timeout: 10_000 });
    },
  };
}

/**
 * The pg-boss queue a job of `queue` goes on: its group's tier's lane. pg-boss leaves out of a fetch
 * only the groups that are at the largest of a queue's tier shares, so on one queue a FREE key at its
 * share of 2 is fetched, put back and fetched again ahead of every later job, and its backlog holds
 * the workers' turns (another account's job waited 10 minutes behind 9 queued FREE jobs). On a lane of
 * one tier, a key at its share is left out of the fetch and the next key's job is taken.
 */
const laneOf = (queue: string, tier: string | undefined) =>
  tier === undefined ? queue : `${queue}/${tier.toLowerCase()}`;

/** `jobs` by the lane each goes on. */
function byLane<Job extends { group?: { tier: string } }>(queue: string, jobs: readonly Job[]): Map<string, Job[]> {
  const lanes = new Map<string, Job[]>();
  for (const job of jobs) {
    const lane = laneOf(queue, job.group?.tier);
    const jobsOfLane = lanes.get(lane);
    if (jobsOfLane === undefined) lanes.set(lane, [job]);
    else jobsOfLane.push(job);
  }
  return lanes;
}

/**
 * The lanes of a queue and their workers: each tier's lane its own `concurrency` workers, a key's
 * share of them its tier's; the queue itself (jobs without a group, or sent before lanes were) a
 * few, as many as a key of no known tier may hold.
 */
function lanesOf(work: QueueWork<object>): { lane: string; concurrency: number; groupShare?: number }[] {
  if (work.groups === undefined) return [{ lane: work.queue, concurrency: work.concurrency }];
  // A group's share is counted in workers, so no share exceeds them.
  const most = (share: number) => Math.max(1, Math.min(share, work.concurrency));
  const otherwise = most(work.groups.otherwise);
  return [
    { lane: work.queue, concurrency: otherwise, groupShare: otherwise },
    ...Object.entries(work.groups.perTier).map(([tier, share]) => ({
      lane: laneOf(work.queue, tier),
      concurrency: work.concurrency,
      groupShare: most(share),
    })),
  ];
}

/** Whether a job of any queue in `schema` waits, waits for a retry or runs. */
async function pendingIn(db: Db, schema: string): Promise<boolean> {
  const [row] = await db.query<{ pending: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${schema}.job WHERE state IN ('created', 'retry', 'active')) AS pending`,
  );
  return row?.pending === true;
}

/**
 * Wakes the workers of `queue` on this instance that hold a job, so each fetches again as soon as its
 * job is done (the one whose job just ended among them). pg-boss would wait out the poll instead,
 * and a queue with a backlog would run a job per worker per poll.
 */
function wakeBusy(boss: PgBoss, queue: string): void {
  for (const worker of boss.getWipData()) if (worker.name === queue && worker.count > 0) boss.notifyWorker(worker.id);
}

/** Wakes one idle worker of `queue` on this instance (a job that waited, or a retry, is due). */
function wakeIdle(boss: PgBoss, queue: string): void {
  const idle = boss.getWipData().find((worker) => worker.name === queue && worker.count === 0);
  if (idle) boss.notifyWorker(idle.id);
}

function newBoss(db: Db, settings: QueueSettings, notified: () => void): PgBoss {
  return new PgBoss({
    db: queueDb(db, notified),
    schema: settings.schema ?? QUEUE_SCHEMA,
    backend: db.kind === "pglite" ? "pglite" : "postgres",
    // Cron schedules are the events issue's; nothing here needs the clock monitor.
    schedule: false,
    useListenNotify: true,
    superviseIntervalSeconds: Math.max(1, Math.floor(settings.heartbeatS / 2)),
    monitorIntervalSeconds: Math.max(1, Math.floor(settings.heartbeatS / 2)),
  });
}

/** Wakes a worker here when a failed job's retry is due; after `stop`, a wake still pending reads nothing from a store that may be closing. */
function retryWaker(boss: PgBoss, db: Db, retryDelayS: number, onError: (error: Error) => void) {
  let stopped = false;
  return {
    wake(queue: string, id: string): void {
      // pg-boss draws the retry's pause as it records the failure, after the handler returns: retryDelayS
      // (at least 1 s) doubled with each retry, and up to twice that with jitter. No pause is shorter
      // than this wait, so after it the failure is recorded and the retry not yet due.
      const recordedS = Math.max(retryDelayS, 1);
      setTimeout(() => {
        if (stopped) return;
        wakeWhenDue(boss, db, queue, id).catch((error: Error) => {
          if (!stopped) onError(error);
        });
      }, recordedS * 1000).unref?.();
    },
    stop(): void {
      stopped = true;
    },
  };
}

/**
 * Wakes an idle worker of `queue` on this instance when the retry of job `id` is due, at the
 * start_after pg-boss gave it, as `send` does for a job that waits: the poll would take it up to
 * `pollS` late. The wait is measured on the store's clock, which the fetch compares start_after
 * with: woken before that, a worker finds nothing and waits out its poll.
 */
async function wakeWhenDue(boss: PgBoss, db: Db, queue: string, id: string): Promise<void> {
  const [job] = await boss.findJobs(queue, { id });
  // Taken already (by a poll, or on another instance): nothing to wake for. On a store too slow to
  // record the failure within the pause, not a retry yet either, and the poll takes it.
  if (job?.state !== "retry") return;
  // Rounded up past start_after's microseconds (a Date keeps milliseconds) and a timer's own rounding.
  const [due] = await db.query<{ ms: number }>(
    "SELECT (ceil(extract(epoch FROM $1::timestamptz - now()) * 1000) + 2)::float8 AS ms",
    [job.startAfter.toISOString()],
  );
  setTimeout(() => wakeIdle(boss, queue), Math.max(0, due!.ms)).unref?.();
}

/** A job as put on a lane. */
interface SentJob {
  data: object;
  group?: { id: string; tier?: string };
  startAfterS?: number;
  priority?: number;
}

/** Puts `jobs` on `lane` (made already), inside `tx` when given, and wakes a worker here when one that waits is due. */
async function insertInto(boss: PgBoss, lane: string, jobs: readonly SentJob[], tx?: Queryable): Promise<void> {
  const inserts = jobs.map(({ data, group, startAfterS, priority }) => ({
    data,
    ...(group ? { group } : {}),
    ...(priority ? { priority } : {}),
    ...(startAfterS ? { startAfter: startAfterS } : {}),
  }));
  await boss.insert(lane, inserts, tx === undefined ? undefined : { db: queueDb(tx) });
  // The insert's NOTIFY wakes workers now; a job that waits is taken when it is due, not a poll later.
  for (const { startAfterS } of jobs) {
    if (startAfterS) setTimeout(() => wakeIdle(boss, lane), startAfterS * 1000).unref?.();
  }
}

/**
 * One job's outcome as pg-boss takes it: a job that asks to run again fails, and pg-boss retries it;
 * one that comes again later is put back on its lane, in its group at its priority, and is settled.
 * An instance that dies between the two runs it again, as it would any job it held: the runs are
 * written to be run twice.
 */
async function settled<Data extends object>(
  boss: PgBoss,
  lane: string,
  job: JobWithMetadata<Data>,
  work: QueueWork<Data>,
  last: boolean,
): Promise<JobResult> {
  const answer = await work.run(job.data, { retries: job.retryCount, last });
  if (typeof answer === "boolean") return { id: job.id, status: answer ? "completed" : "failed" };
  const group = job.groupId ? { id: job.groupId, ...(job.groupTier ? { tier: job.groupTier } : {}) } : undefined;
  await insertInto(boss, lane, [{ data: answer.data, group, startAfterS: answer.againInS, priority: job.priority }]);
  return { id: job.id, status: "completed" };
}
