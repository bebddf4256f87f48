// PGlite is one process's database: two processes opening the same folder would corrupt it.
// A lock file naming the owner keeps a second one out; a lock left by a dead process is taken
// over. The owner is named by its pid and, where /proc exists, its start time: after a kill -9
// the pid may already belong to an unrelated process, which must not keep the lock.
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, "store.lock");
  const me = `${process.pid} ${startTimeOf(process.pid) ?? ""}`.trim();
  try {
    writeFileSync(path, me, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const [pid, started] = readFileSync(path, "utf8").trim().split(" ");
    const owner = Number(pid);
    if (owner && owner !== process.pid && isAlive(owner, started)) {
      throw new Error(`The data folder ${dataDir} is in use by process ${owner}; stop it or use its admin socket.`);
    }
    writeFileSync(path, me, { mode: 0o600 });
  }
  return {
    release() {
      try {
        if (readFileSync(path, "utf8").trim() === me) unlinkSync(path);
      } catch {
        // Already gone: nothing to release.
      }
    },
  };
}

/** Whether the process that wrote the lock still runs: its pid exists and, when both are known, started when it did. */
export function isAlive(pid: number, started: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const now = startTimeOf(pid);
  return started === undefined || now === null || now === started;
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or null without /proc. */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name in field 2 may hold spaces and parentheses: count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}
