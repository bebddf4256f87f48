// A backup of the store as one JSON document: every table's rows, read by one statement (so from
// one snapshot: a consistent copy while the service runs), and the migrations the store had. A
// restore writes them into a fresh store of the same migrations, in place of what it holds.
import type { Db, Queryable } from "./db.ts";
import { migrations } from "./migrate.ts";

export interface Backup {
  format: typeof FORMAT;
  /** The migrations the store had; a restore needs a store with the same. */
  migrations: number[];
  madeAt: string;
  /** Each table's rows, as Postgres writes them in JSON. */
  tables: Record<string, unknown[]>;
}

const FORMAT = "media-api-backup-1";
/** Written by migrate.ts from the migration list, not data to restore. */
const MIGRATIONS_TABLE = "schema_migrations";

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function tablesOf(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.map((row) => row.name);
}

export async function backupStore(db: Queryable, now: Date): Promise<Backup> {
  const tables = await tablesOf(db);
  const fields = tables.map((table) =>
    `'${table.replaceAll("'", "''")}', (SELECT coalesce(json_agg(t), '[]'::json) FROM ${quoted(table)} t)`
  );
  const [row] = await db.query<{ tables: Record<string, unknown[]> }>(
    `SELECT json_build_object(${fields.join(", ")}) AS tables`,
  );
  const all = typeof row!.tables === "string" ? JSON.parse(row!.tables) : row!.tables;
  const versions = (all[MIGRATIONS_TABLE] as { version: number }[]).map((each) => each.version).sort((a, b) => a - b);
  delete all[MIGRATIONS_TABLE];
  return { format: FORMAT, migrations: versions, madeAt: now.toISOString(), tables: all };
}

/** Reads a backup file's text; throws saying why it is none. */
export function parseBackup(text: string): Backup {
  let backup: Partial<Backup>;
  try {
    backup = JSON.parse(text);
  } catch {
    throw new Error("The file is no backup of media-api: it is not JSON.");
  }
  if (backup.format !== FORMAT || !Array.isArray(backup.migrations) || typeof backup.tables !== "object") {
    throw new Error(`The file is no backup of media-api (format ${FORMAT}).`);
  }
  return backup as Backup;
}

/**
 * Replaces the rows of a migrated store with the backup's, in one transaction. The references
 * between tables are not checked while the rows go in (they held in the store the backup was read
 * from), which needs a superuser: the embedded store's.
 */
export async function restoreStore(db: Db, backup: Backup): Promise<void> {
  const ours = migrations.map((each) => each.version);
  if (backup.migrations.join() !== ours.join()) {
    throw new Error(
      `The backup was made by a store at migration ${backup.migrations.at(-1)}, this build's is ${ours.at(-1)}: ` +
        "restore it with the build that made it, then start this one (it migrates the store on start).",
    );
  }
  await db.transaction(async (tx) => {
    const tables = await tablesOf(tx);
    await tx.exec("SET LOCAL session_replication_role = replica");
    for (const [table, rows] of Object.entries(backup.tables)) {
      if (!tables.includes(table)) throw new Error(`The backup has a table ${table} this store does not.`);
      await tx.exec(`DELETE FROM ${quoted(table)}`);
      await tx.query(
        `INSERT INTO ${quoted(table)} OVERRIDING SYSTEM VALUE
           SELECT * FROM json_populate_recordset(NULL::${quoted(table)}, $1::json)`,
        [JSON.stringify(rows)],
      );
    }
    await restartSequences(tx);
  });
}

/** Each identity or serial column's sequence goes on after the largest value restored. */
async function restartSequences(tx: Queryable): Promise<void> {
  const columns = await tx.query<{ table_name: string; column_name: string; sequence: string }>(
    `SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) AS sequence
       FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND pg_get_serial_sequence(quote_ident(table_name), column_name) IS NOT NULL`,
  );
  for (const { table_name, column_name, sequence } of columns) {
    await tx.query(
      `SELECT setval($1, coalesce(max(${quoted(column_name)}), 1), max(${quoted(column_name)}) IS NOT NULL)
         FROM ${quoted(table_name)}`,
      [sequence],
    );
  }
}
