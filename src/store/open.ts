// Opens the store the configuration names and brings its schema up to date.
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { lockDataDir } from "./data-dir-lock.ts";
import { type Db, openPglite, openPostgres, reportingFullDisk } from "./db.ts";
import { isDiskFull, noSpaceIn } from "./disk-space.ts";
import { migrate } from "./migrate.ts";
import { bundledTemplate, seedFromTemplate } from "./pglite-template.ts";

export interface EmbeddedStoreOptions {
  /** The data folder a new embedded store starts from (tests name their own). */
  template?: string;
  /** Opens PGlite in a folder: in this thread by default, or on one of its own (openPgliteThread). */
  openPgliteIn?: (folder: string) => Promise<Db>;
}

export async function openStore(
  config: { DATABASE_URL?: string | undefined; DATA_DIR: string },
  embedded: EmbeddedStoreOptions = {},
): Promise<Db> {
  if (config.DATABASE_URL) return migrated(reportingFullDisk(openPostgres(config.DATABASE_URL)));
  try {
    return await migrated(await openEmbedded(config.DATA_DIR, embedded));
  } catch (error) {
    // A full disk fails in many words (ENOSPC from a file, "could not extend file", "PGlite failed
    // to initialize properly", "Aborted()"); the operator is told the cause instead.
    const noSpace = noSpaceIn(config.DATA_DIR) ??
      (isDiskFull(error) ? `no space left in DATA_DIR (${config.DATA_DIR})` : null);
    if (noSpace === null) throw error;
    throw new Error(`The embedded store cannot start: ${noSpace}.`, { cause: error });
  }
}

async function migrated(db: Db): Promise<Db> {
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** Creates `folder` (and its parents) and makes it the owner's alone, also when it was there before. */
export function privateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
}

async function openEmbedded(
  dataDir: string,
  { template = bundledTemplate, openPgliteIn = openPglite }: EmbeddedStoreOptions,
): Promise<Db> {
  privateFolder(dataDir);
  const lock = lockDataDir(dataDir);
  try {
    const folder = join(dataDir, "pglite");
    seedFromTemplate(folder, template);
    privateFolder(folder);
    const db = reportingFullDisk(await openPgliteIn(folder));
    return {
      ...db,
      close: async () => {
        await db.close();
        lock.release();
      },
      ready: async () => {
        const noSpace = noSpaceIn(dataDir);
        if (noSpace !== null) throw new Error(noSpace);
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
