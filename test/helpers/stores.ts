// Both stores for tests: a PGlite in a folder of the test's own, and the PostgreSQL server of this
// machine with a schema (or database) of the test's own, so test files can run side by side.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type Db, openPglite, openPostgres } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { seedFromTemplate } from "../../src/store/pglite-template.ts";

/**
 * The embedded store's template that `node build.mjs` (the tests' global setup) makes: initdb and
 * the migrations, run once. A PGlite made in memory runs initdb itself, 1.5 to 4 CPU seconds each
 * time; a copy of the template opens in about 0.5, as a new service's store does.
 */
const builtTemplate = "dist/pglite-template";

export const storeKinds = ["pglite", "postgres"] as const;
export type StoreKind = (typeof storeKinds)[number];

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestStore {
  db: Db;
  /**
   * The job queue's schema for this store: pg-boss names its schema itself, so stores that are
   * schemas of one database give their queues schemas of their own, or one file's workers take another's jobs.
   */
  queueSchema: string;
  /** Opens another pool on the same data (Postgres only): a second service instance, or one through `url`. */
  connectAgain(url?: string): Db;
  close(): Promise<void>;
}

const uniqueName = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "pglite") {
    const folder = mkdtempSync(join(tmpdir(), "test-store-"));
    seedFromTemplate(join(folder, "pglite"), builtTemplate);
    const db = await openPglite(join(folder, "pglite"));
    await migrate(db);
    return {
      db,
      queueSchema: "pgboss",
      connectAgain: () => {
        throw new Error("PGlite is one process's database");
      },
      async close() {
        await db.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }
  const schema = uniqueName("t");
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const opened: Db[] = [];
  const connectAgain = (url = TEST_DATABASE_URL) => {
    const db = openPostgres(url, { searchPath: schema });
    opened.push(db);
    return db;
  };
  const db = connectAgain();
  await migrate(db);
  const queueSchema = `${schema}_queue`;
  return {
    db,
    queueSchema,
    connectAgain,
    async close() {
      await Promise.all(opened.map((each) => each.close()));
      await admin.unsafe(`DROP SCHEMA IF EXISTS ${queueSchema} CASCADE`);
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** A database of its own on the test server, for black-box runs of the built service. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = uniqueName("db");
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
