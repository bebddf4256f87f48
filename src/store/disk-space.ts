// The space left where the embedded store writes. A full disk shows itself in PGlite's own words,
// when it shows at all ("could not extend file", or at start-up "PGlite failed to initialize
// properly" and "Aborted()"), so the service asks the file system and names the cause itself.
// A namespace import: a runtime whose node:fs lacks statfsSync then only gives no answer.
import * as fs from "node:fs";

/** Below this, writes are about to fail: readiness says so, and a failed start-up is put down to it. */
export const MIN_FREE_BYTES = 4 * 1024 * 1024;

/** Bytes an unprivileged writer may still use in `folder`'s file system; null when unknown (no such folder, no statfs). */
export function freeBytes(folder: string): number | null {
  try {
    const stats = fs.statfsSync(folder);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return null;
  }
}

/** What to tell the operator when DATA_DIR is (nearly) full; null when there is room or it cannot be told. */
export function noSpaceIn(dataDir: string): string | null {
  const free = freeBytes(dataDir);
  if (free === null || free >= MIN_FREE_BYTES) return null;
  return `no space left in DATA_DIR (${dataDir}): ${
    Math.floor(free / 1024)
  } KiB free; free some space there or move DATA_DIR to a larger disk`;
}

/** Whether an error is the disk's being full: the system's ENOSPC, or Postgres's disk_full (53100). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "53100";
}
