// Opens the store the configuration names and brings its schema up to date.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { lockDataDir } from "./data-dir-lock.ts";
import { openPglite, openPostgres, type Db } from "./db.ts";
import { migrate } from "./migrate.ts";
import { bundledTemplate, seedFromTemplate } from "./pglite-template.ts";

export async function openStore(
  config: { DATABASE_URL?: string | undefined; DATA_DIR: string },
  /** The data folder a new embedded store starts from (tests name their own). */
  pgliteTemplate = bundledTemplate,
): Promise<Db> {
  const db = config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : await openEmbedded(config.DATA_DIR, pgliteTemplate);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

async function openEmbedded(dataDir: string, template: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    const folder = join(dataDir, "pglite");
    seedFromTemplate(folder, template);
    const db = await openPglite(folder);
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
