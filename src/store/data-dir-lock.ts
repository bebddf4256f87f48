// PGlite is one process's database: two processes opening the same folder would corrupt it.
// A lock file holding the owner's pid keeps a second one out; a lock left by a dead process is
// taken over.
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, "store.lock");
  try {
    writeFileSync(path, String(process.pid), { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const owner = Number(readFileSync(path, "utf8"));
    if (owner && owner !== process.pid && isAlive(owner)) {
      throw new Error(`The data folder ${dataDir} is in use by process ${owner}; stop it or use its admin socket.`);
    }
    writeFileSync(path, String(process.pid));
  }
  return {
    release() {
      try {
        if (Number(readFileSync(path, "utf8")) === process.pid) unlinkSync(path);
      } catch {
        // Already gone: nothing to release.
      }
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
