// One small SQL interface over the two stores: a PostgreSQL server through postgres.js, or
// PGlite (Postgres compiled to WASM) in a local folder. Both run the same SQL.
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { sharedRuns } from "../util/shared-runs.ts";
import { isDiskFull } from "./disk-space.ts";

export interface Queryable {
  /** One statement with $1-style parameters. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * Several statements without parameters, as in a migration file; the rows each returned, in
   * order (the queue's scripts read a RETURNING between their BEGIN and COMMIT).
   */
  exec<Row = Record<string, unknown>>(script: string): Promise<Row[]>;
}

/** A subscription to a channel's notifications; `close` ends it. */
export interface Listening {
  close(): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: "postgres" | "pglite";
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotification` with the payload of each NOTIFY on `channel`, and `onReconnect` after each
   * time it (re)subscribes, since a notification sent while it was not listening is lost. The job
   * queue wakes its workers with it instead of each polling every second.
   */
  listen(channel: string, onNotification: (payload: string) => void, onReconnect: () => void): Promise<Listening>;
  /**
   * Runs `work` while this instance holds the advisory lock `key` on a connection of its own, so
   * instances of one server take turns at it (however many statements and transactions `work` is);
   * the embedded store has one instance, which runs it at once.
   */
  inTurn<T>(key: number, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Readiness beyond answering a query, when the store can tell (the embedded store: space left in DATA_DIR); rejects with the reason. */
  ready?(): Promise<void>;
}

/**
 * The store cannot be reached. The app answers 503 store_unavailable with Retry-After; the store
 * layer knows nothing of HTTP.
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  /** Seconds until a new attempt to connect is made. */
  readonly retryAfterS: number = Math.ceil(RETRY_AFTER_MS / 1000);
}

/** The store cannot write: its disk is full. The app answers 503 store_unavailable too; the operator has to act. */
export class StoreFullError extends StoreUnavailableError {
  override name = "StoreFullError";
  override readonly retryAfterS = 60;
}

/** `db` with each disk-full failure of a call turned into StoreFullError; other errors pass as they are. */
export function reportingFullDisk(db: Db): Db {
  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      throw new StoreFullError(`The store cannot write, its disk is full: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  return {
    ...db,
    query: (text, params) => guard(() => db.query(text, params)),
    exec: (script) => guard(() => db.exec(script)),
    transaction: (work) => guard(() => db.transaction(work)),
  };
}

/** How long connecting to the server may take; the driver's default is 30 s. */
const CONNECT_TIMEOUT_S = 3;
/**
 * How long a call waits for the server's answer before the server is asked, on a connection of its
 * own, whether it is there; the call counts the server as gone once that probe fails or has no
 * answer within PROBE_DEADLINE_MS. The driver has no such bound of its own: a connection that
 * something accepts and closes at once (a TCP proxy such as docker's port forward with no database
 * behind it) it tries again for as long as a query waits, and the query never fails. A call may
 * also wait because the server is busy (every pooled connection in use, a row locked by another
 * instance, a machine under load): the probe tells the two apart, so a slow store is not taken for
 * a gone one, which would answer 503 and drop the calls in flight. A transaction is bounded until
 * its work begins, so a long migration may take the time it needs.
 */
const PROBE_AFTER_MS = 1_000;
const PROBE_DEADLINE_MS = 2_000;
/** How long a call may wait in all while the server answers the probe; past it the pool counts as stuck. */
const SLOW_ANSWER_DEADLINE_MS = 30_000;
/** After a failed connection, calls fail at once for this long instead of each waiting again. */
const RETRY_AFTER_MS = 2_000;
// Errors that say the server is not there (or went away), as opposed to a failed statement.
const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "NO_ANSWER",
  "57P01",
  "57P02",
  "57P03", // admin_shutdown, crash_shutdown, cannot_connect_now
]);

const noAnswer = (ms: number) => Object.assign(new Error(`no answer within ${ms} ms`), { code: "NO_ANSWER" });

/**
 * Rejects with NO_ANSWER when `call` has not begun by the time `probe`, sent after PROBE_AFTER_MS,
 * fails; and in any case when it has not begun within SLOW_ANSWER_DEADLINE_MS. Each decision waits
 * for the I/O already in: a process that a loaded machine held past a deadline has the answer
 * waiting in its socket, and Node runs due timers before it reads sockets.
 */
function answerDeadline(probe: () => Promise<void>) {
  let ended = false;
  const timers: ReturnType<typeof setTimeout>[] = [];
  const after = (ms: number, then: () => void) =>
    timers.push(setTimeout(() => setImmediate(() => ended || then()), ms));
  const expired = new Promise<never>((_, reject) => {
    const gone = () => setImmediate(() => ended || reject(noAnswer(PROBE_AFTER_MS + PROBE_DEADLINE_MS)));
    after(PROBE_AFTER_MS, () => void probe().catch(gone));
    after(SLOW_ANSWER_DEADLINE_MS, () => reject(noAnswer(SLOW_ANSWER_DEADLINE_MS)));
  });
  const end = () => {
    ended = true;
    timers.forEach(clearTimeout);
  };
  return { expired, end };
}

/**
 * Runs calls to a server that may be gone: a connection failure, or no answer in time, opens a
 * short window in which every call fails at once with StoreUnavailableError, and `onDown` drops
 * the pool, so calls the driver queued fail now instead of retrying and running after their
 * caller got a 503. The first call after the window tries again: the store recovers by itself.
 * A call says `begun()` once the server has answered it, which ends its deadline.
 */
function connectionGuard(onDown: () => void, probe: () => Promise<void>, now: () => number = Date.now) {
  let downUntil = 0;
  return async <T>(call: (begun: () => void) => Promise<T>): Promise<T> => {
    if (now() < downUntil) throw new StoreUnavailableError("The database server could not be reached a moment ago.");
    const deadline = answerDeadline(probe);
    try {
      return await Promise.race([call(deadline.end), deadline.expired]);
    } catch (error) {
      if (!CONNECTION_ERRORS.has(String((error as { code?: unknown }).code))) throw error;
      if (now() >= downUntil) {
        downUntil = now() + RETRY_AFTER_MS;
        onDown();
      }
      throw new StoreUnavailableError(`The database server cannot be reached: ${(error as Error).message}`, {
        cause: error,
      });
    } finally {
      deadline.end();
    }
  };
}

/** postgres.js answers a script of one statement with its rows, and of several with one row list each. */
function rowsOfEach(result: unknown[]): unknown[] {
  return result.some(Array.isArray) ? result.flatMap((each) => (Array.isArray(each) ? each : [])) : result;
}

export interface PostgresOptions {
  /** Schema to work in; tests give each file its own. */
  searchPath?: string;
  max?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): Db {
  const connect = () =>
    postgres(url, {
      max: options.max ?? 10,
      connect_timeout: CONNECT_TIMEOUT_S,
      onnotice: () => {},
      connection: options.searchPath ? { search_path: options.searchPath } : {},
      // Integers beyond 2^53 are not used; counts come back as int4.
    });
  let sql = connect();
  // On a connection of its own: the pool's may all be busy, which is what the probe tells apart.
  const probeServer = async () => {
    const lone = postgres(url, { max: 1, connect_timeout: PROBE_DEADLINE_MS / 1000, onnotice: () => {} });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => setImmediate(() => reject(noAnswer(PROBE_DEADLINE_MS))), PROBE_DEADLINE_MS);
    });
    try {
      await Promise.race([lone`select 1`, silence]);
    } finally {
      clearTimeout(timer);
      void lone.end({ timeout: 0 }).catch(() => {});
    }
  };
  // The calls that wait at once share one probe, rather than each opening a connection.
  const probing = sharedRuns<void>();
  const probe = () => probing("server", probeServer);
  const over = (handle: postgres.Sql | postgres.TransactionSql): Queryable => ({
    query: async (text, params = []) =>
      (await handle.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as never,
    exec: async (script) => rowsOfEach(await handle.unsafe(script).simple()) as never,
  });
  const listeners = new Set<Listener>();
  const guarded = connectionGuard(() => {
    const lost = sql;
    sql = connect();
    void lost.end({ timeout: 0 }).catch(() => {});
    // Their connection went with the pool: each listens again on the new one.
    for (const listener of listeners) void subscribed(listener);
  }, probe);
  /** Subscribes `listener` on the current pool, trying again while the server cannot be reached. */
  const subscribed = async (listener: Listener): Promise<void> => {
    try {
      const on = sql;
      const { unlisten } = await on.listen(listener.channel, listener.onNotification, listener.onReconnect);
      listener.unlisten = unlisten;
    } catch {
      if (listeners.has(listener)) setTimeout(() => listeners.has(listener) && subscribed(listener), RETRY_AFTER_MS);
    }
  };
  return {
    kind: "postgres",
    query: (text, params) => guarded(() => over(sql).query(text, params)),
    exec: (script) => guarded(() => over(sql).exec(script)),
    transaction: (work) =>
      guarded((begun) =>
        sql.begin((tx) => {
          begun();
          return work(over(tx));
        }) as Promise<never>
      ),
    async listen(channel, onNotification, onReconnect) {
      const listener: Listener = { channel, onNotification, onReconnect, unlisten: async () => {} };
      const { unlisten } = await sql.listen(channel, onNotification, onReconnect);
      listener.unlisten = unlisten;
      listeners.add(listener);
      return {
        close: async () => {
          listeners.delete(listener);
          await listener.unlisten().catch(() => {});
        },
      };
    },
    inTurn: (key, work) => inAdvisoryTurn(sql, key, work),
    close: () => sql.end({ timeout: 5 }),
  };
}

/** `work` while a connection of `pool`'s own holds the advisory lock `key`, a session's lock: `work` runs on the pool. */
async function inAdvisoryTurn<T>(pool: postgres.Sql, key: number, work: () => Promise<T>): Promise<T> {
  const reserved = await pool.reserve();
  try {
    await reserved.unsafe("SELECT pg_advisory_lock($1)", [key]);
    try {
      return await work();
    } finally {
      // A connection that broke has lost its lock with it; work's own outcome is the one to tell.
      await reserved.unsafe("SELECT pg_advisory_unlock($1)", [key]).catch(() => {});
    }
  } finally {
    reserved.release();
  }
}

/** A subscription of a PostgreSQL server's store, kept across a new pool. */
interface Listener {
  channel: string;
  onNotification(payload: string): void;
  onReconnect(): void;
  unlisten(): Promise<void>;
}

// PGlite's default of 128 MB shared buffers is most of its resident memory; this store's working
// set (keys, counters, sessions) fits in a few MB, and the OS caches the data folder anyway.
// Measured: 280-330 MB idle with the default, 150-160 MB with 8 MB.
const pgliteStartParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=8MB"];

/** `dataDir` undefined keeps the database in memory (tests). */
export async function openPglite(dataDir?: string): Promise<Db> {
  const db = await PGlite.create(dataDir, { startParams: pgliteStartParams });
  const over = (handle: Pick<PGlite, "query" | "exec">): Queryable => ({
    query: async (text, params = []) => (await handle.query(text, params as unknown[])).rows as never,
    exec: async (script) => (await handle.exec(script)).flatMap((result) => result.rows) as never,
  });
  return {
    kind: "pglite",
    ...over(db),
    transaction: (work) => db.transaction((tx) => work(over(tx))),
    async listen(channel, onNotification, onReconnect) {
      const unlisten = await db.listen(channel, onNotification);
      onReconnect();
      return { close: () => unlisten() };
    },
    inTurn: (_key, work) => work(),
    close: () => db.close(),
  };
}
