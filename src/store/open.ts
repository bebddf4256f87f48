// Opens the store the configuration names and brings its schema up to date.
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { lockDataDir } from "./data-dir-lock.ts";
import { openPglite, openPostgres, type Db } from "./db.ts";
import { migrate } from "./migrate.ts";
import { bundledTemplate, seedFromTemplate } from "./pglite-template.ts";

export interface EmbeddedStoreOptions {
  /** The data folder a new embedded store starts from (tests name their own). */
  template?: string;
  /** Opens PGlite in a folder: in this thread by default, or on one of its own (openPgliteThread). */
  openPgliteIn?: (folder: string) => Promise<Db>;
}

export async function openStore(config: { DATABASE_URL?: string | undefined; DATA_DIR: string }, embedded: EmbeddedStoreOptions = {}): Promise<Db> {
  const db = config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : await openEmbedded(config.DATA_DIR, embedded);
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

async function openEmbedded(dataDir: string, { template = bundledTemplate, openPgliteIn = openPglite }: EmbeddedStoreOptions): Promise<Db> {
  privateFolder(dataDir);
  const lock = lockDataDir(dataDir);
  try {
    const folder = join(dataDir, "pglite");
    seedFromTemplate(folder, template);
    privateFolder(folder);
    const db = await openPgliteIn(folder);
    return {
      ...db,
      close: async () => {
        await db.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
