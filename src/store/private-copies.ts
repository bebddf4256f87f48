// Where the service keeps its private copies of the operator's files (COOKIES_FILE, which yt-dlp
// and gallery-dl each get a copy of per run): DATA_DIR/private-copies/<pid>-<start>/, one folder
// per running instance (instances on PostgreSQL may share a DATA_DIR). A copy lives one tool run,
// but a service killed with -9 cannot remove it; so each start removes the folders of instances
// that no longer run, and a clean stop its own. Nothing of the operator's is left in TMPDIR.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive, startTimeOf } from "./data-dir-lock.ts";
import { privateFolder } from "./open.ts";

export const PRIVATE_COPIES = "private-copies";

export interface PrivateCopies {
  /** This instance's folder (0700). */
  path: string;
  /** Removes it with what is left in it. */
  remove(): void;
}

/** Removes the copies dead instances left in `dataDir`, and makes this instance's folder. */
export function privateCopies(dataDir: string): PrivateCopies {
  const root = join(dataDir, PRIVATE_COPIES);
  const mine = `${process.pid}-${startTimeOf(process.pid) ?? "0"}`;
  removeLeftBehind(root, mine);
  const path = join(root, mine);
  privateFolder(root);
  privateFolder(path);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Removes the folder of every instance in `root` that no longer runs (none when `root` is not
 * there). A folder of this instance's name is an earlier process's that had the same pid.
 */
function removeLeftBehind(root: string, mine: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const [pid = "", started = "0"] = name.split("-", 2);
    const owner = Number(pid);
    if (name !== mine && owner > 0 && isAlive(owner, started === "0" ? undefined : started)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
  }
}
