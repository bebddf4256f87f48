// Which store the service of a data folder runs on, written by the service at each start in
// DATA_DIR/store, so the operator's command run without DATABASE_URL does not open an empty
// embedded store beside a service on PostgreSQL (a key made there would be unknown to the service).
// The mark holds only the kind, never the server's address or password.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { privateFolder } from "./open.ts";

export type StoreKind = "embedded" | "postgres";

const MARK_FILE = "store";

function markPath(dataDir: string): string {
  return join(dataDir, MARK_FILE);
}

/** Records the kind of store the service runs on (the service calls this once it is open). */
export function markStoreKind(dataDir: string, kind: StoreKind): void {
  privateFolder(dataDir);
  writeFileSync(markPath(dataDir), `${kind}\n`, { mode: 0o600 });
}

/** The kind the folder's service last ran on; null when no service has marked it. */
export function markedStoreKind(dataDir: string): StoreKind | null {
  try {
    const text = readFileSync(markPath(dataDir), "utf8").trim();
    return text === "postgres" || text === "embedded" ? text : null;
  } catch {
    return null;
  }
}

/** Throws, naming DATABASE_URL, when the command would open the embedded store of a folder whose service runs on PostgreSQL. */
export function refuseEmbeddedBesidePostgres(config: { DATABASE_URL?: string | undefined; DATA_DIR: string }): void {
  if (config.DATABASE_URL || markedStoreKind(config.DATA_DIR) !== "postgres") return;
  throw new Error(
    `The service of DATA_DIR (${config.DATA_DIR}) runs on PostgreSQL, but DATABASE_URL is not set here: this command would open an empty embedded store instead. ` +
      "Run it with the service's DATABASE_URL (for systemd: set -a; . /etc/media-api/media-api.env; set +a).",
  );
}
