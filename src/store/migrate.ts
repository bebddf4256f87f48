// Applies the SQL files in src/store/migrations in order, once each, on either store. One advisory
// lock makes instances that start together on one server take turns at every schema step, these
// and the queue's (src/jobs/queue.ts).
import type { Db } from "./db.ts";
import init from "./migrations/001_init.sql?raw";
import sessions from "./migrations/002_sessions.sql?raw";
import refund from "./migrations/003_refund.sql?raw";
import deletedKeys from "./migrations/004_deleted_keys.sql?raw";
import signInClients from "./migrations/005_sign_in_clients.sql?raw";
import signUpLimits from "./migrations/006_sign_up_limits.sql?raw";
import linkSecret from "./migrations/007_link_secret.sql?raw";
import linkSecretPerStore from "./migrations/008_link_secret_per_store.sql?raw";
import jobs from "./migrations/009_jobs.sql?raw";
import webhooks from "./migrations/010_webhooks.sql?raw";
import watches from "./migrations/011_watches.sql?raw";
import countedAndBounded from "./migrations/012_counted_and_bounded.sql?raw";
import linksRead from "./migrations/015_links_read.sql?raw";
import accountCookies from "./migrations/016_account_cookies.sql?raw";
import listedTitles from "./migrations/019_listed_titles.sql?raw";
import jobLinks from "./migrations/020_job_links.sql?raw";

export const migrations: readonly { version: number; sql: string }[] = [
  { version: 1, sql: init },
  { version: 2, sql: sessions },
  { version: 3, sql: refund },
  { version: 4, sql: deletedKeys },
  { version: 5, sql: signInClients },
  { version: 6, sql: signUpLimits },
  { version: 7, sql: linkSecret },
  { version: 8, sql: linkSecretPerStore },
  { version: 9, sql: jobs },
  { version: 10, sql: webhooks },
  { version: 11, sql: watches },
  { version: 12, sql: countedAndBounded },
  { version: 15, sql: linksRead },
  { version: 16, sql: accountCookies },
  { version: 19, sql: listedTitles },
  { version: 20, sql: jobLinks },
];

const SCHEMA_LOCK = 7_303_001;

/**
 * Runs `work`, a step that makes or changes a schema, while no other instance on the server runs
 * one. The turn spans the whole step: PostgreSQL's catalog caches are refreshed as a transaction
 * begins, not as an advisory lock is granted inside one, so a step that waited inside its
 * transaction (pg-boss's) did not see the schema another had made while it waited, made it again,
 * and failed on pg_namespace's unique index.
 */
export function inSchemaTurn<T>(db: Db, work: () => Promise<T>): Promise<T> {
  return db.inTurn(SCHEMA_LOCK, work);
}

export function migrate(db: Db): Promise<number[]> {
  return inSchemaTurn(db, () => applyMigrations(db));
}

function applyMigrations(db: Db): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const done = new Set(
      (await tx.query<{ version: number }>("SELECT version FROM schema_migrations")).map((row) => row.version),
    );
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (version) VALUES ($1)", [migration.version]);
      applied.push(migration.version);
    }
    return applied;
  });
}
