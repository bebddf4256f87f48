// `admin backup FILE` and `admin restore FILE`, for the embedded store. The backup is read by
// whoever holds the store (the running service, over the admin socket, or the command line) and
// written to FILE by the command line; a restore goes into an empty DATA_DIR with the service
// stopped. A PostgreSQL server is backed up with its own tools (docs/operating.md).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Db, Queryable } from "../store/db.ts";
import { type Backup, backupStore, parseBackup, restoreStore } from "../store/backup.ts";
import type { CommandResult } from "./command-result.ts";

/** Their lines in the command table of commands.ts, for the usage and `--help`. */
export const backupHelp = {
  synopsis: "FILE",
  summary:
    "Writes a consistent copy of the embedded store (every account, key, session and count) to FILE, mode 0600: it holds password and key hashes. Works while the service runs. For PostgreSQL use pg_dump (docs/operating.md).",
};
export const restoreHelp = {
  synopsis: "FILE",
  summary:
    "Makes the embedded store in an empty DATA_DIR from a backup of the same version, with the service stopped; the keys of the backup work again.",
};

export const isBackupCommand = (argv: readonly string[]) => argv[0] === "backup" || argv[0] === "restore";

/** The store's backup as the command's output (what the admin socket sends back); written to FILE by the command line. */
export async function backupAnswer(db: Queryable, now: Date): Promise<CommandResult> {
  return { code: 0, stdout: JSON.stringify(await backupStore(db, now)), stderr: "" };
}

/** What the running service answers to `restore`: never into the store it holds. */
export const restoreRefusal: CommandResult = {
  code: 1,
  stdout: "",
  stderr: "The service runs on this DATA_DIR: stop it, then restore into an empty DATA_DIR.\n",
};

const failure = (message: string): CommandResult => ({ code: 1, stdout: "", stderr: `${message}\n` });

/** Checks the command's words and the store's kind; null when it may go on. */
export function refusalOf(
  argv: readonly string[],
  config: { DATABASE_URL?: string | undefined },
): CommandResult | null {
  if (argv.length !== 2) return { code: 2, stdout: "", stderr: `Usage: admin ${argv[0]} FILE\n` };
  if (config.DATABASE_URL) {
    return failure(
      `admin ${
        argv[0]
      } is for the embedded store; with DATABASE_URL use pg_dump and pg_restore (docs/operating.md, Backups).`,
    );
  }
  return null;
}

/** Writes the backup the service or this process made to `file`, and says what it holds. */
export function writeBackup(answer: CommandResult, file: string): CommandResult {
  if (answer.code !== 0) return answer;
  const backup = parseBackup(answer.stdout);
  writeFileSync(file, answer.stdout, { mode: 0o600 });
  return { code: 0, stdout: `${file}\t${summary(backup)}\n`, stderr: "" };
}

/** Whether DATA_DIR holds an embedded store already (a restore does not go over one). */
export function holdsStore(dataDir: string): boolean {
  const folder = join(dataDir, "pglite");
  return existsSync(folder) && readdirSync(folder).length > 0;
}

export async function restoreFrom(db: Db, file: string): Promise<CommandResult> {
  const backup = parseBackup(readFileSync(file, "utf8"));
  await restoreStore(db, backup);
  return { code: 0, stdout: `restored\t${summary(backup)}\n`, stderr: "" };
}

const summary = (backup: Backup) =>
  `${backup.tables.accounts?.length ?? 0} accounts\t${backup.tables.api_keys?.length ?? 0} keys\tmade ${backup.madeAt}`;
