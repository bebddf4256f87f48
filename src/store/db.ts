// One small SQL interface over the two stores: a PostgreSQL server through postgres.js, or
// PGlite (Postgres compiled to WASM) in a local folder. Both run the same SQL.
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";

export interface Queryable {
  /** One statement with $1-style parameters. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements without parameters, as in a migration file. */
  exec(script: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: "postgres" | "pglite";
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Schema to work in; tests give each file its own. */
  searchPath?: string;
  max?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): Db {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: options.searchPath ? { search_path: options.searchPath } : {},
    // Integers beyond 2^53 are not used; counts come back as int4.
  });
  const over = (handle: postgres.Sql | postgres.TransactionSql): Queryable => ({
    query: async (text, params = []) => (await handle.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as never,
    exec: async (script) => {
      await handle.unsafe(script).simple();
    },
  });
  return {
    kind: "postgres",
    ...over(sql),
    transaction: (work) => sql.begin((tx) => work(over(tx))) as Promise<never>,
    close: () => sql.end({ timeout: 5 }),
  };
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
    exec: async (script) => {
      await handle.exec(script);
    },
  });
  return {
    kind: "pglite",
    ...over(db),
    transaction: (work) => db.transaction((tx) => work(over(tx))),
    close: () => db.close(),
  };
}
