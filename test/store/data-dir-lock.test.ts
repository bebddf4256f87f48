import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir, startTimeOf } from "../../src/store/data-dir-lock.ts";
import { openStore } from "../../src/store/open.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function folder(): string {
  const made = mkdtempSync(join(tmpdir(), "lock-"));
  folders.push(made);
  return made;
}

describe("lockDataDir()", () => {
  it("takes over, the first time, a lock whose process is gone", () => {
    const dir = folder();
    const dead = spawnSync("true").pid!;
    writeFileSync(join(dir, "store.lock"), `${dead} 12345`);
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, "store.lock"), "utf8")).toMatch(new RegExp(`^${process.pid}\\b`));
    lock.release();
  });

  it("takes over a lock whose pid now belongs to an unrelated process, and refuses one whose owner runs", async () => {
    const dir = folder();
    const other = spawn("sleep", ["30"]);
    try {
      // The pid runs, but it started at another time than the lock says: a reused pid.
      writeFileSync(join(dir, "store.lock"), `${other.pid} 1`);
      lockDataDir(dir).release();
      // The same pid with its real start time: the owner still runs.
      writeFileSync(join(dir, "store.lock"), `${other.pid} ${startTimeOf(other.pid!)}`);
      expect(() => lockDataDir(dir)).toThrow(/in use by process/);
      // A lock of the old format, a pid alone, is still honoured while that pid runs.
      writeFileSync(join(dir, "store.lock"), `${other.pid}`);
      expect(() => lockDataDir(dir)).toThrow(/in use by process/);
    } finally {
      other.kill();
      await once(other, "exit");
    }
  });
});

describe("openStore() with the embedded store", () => {
  it("keeps the data folder and its pglite folder to the owner (0700), also when they existed", async () => {
    const dir = folder();
    chmodSync(dir, 0o755);
    const db = await openStore({ DATA_DIR: dir });
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, "pglite")).mode & 0o777).toBe(0o700);
    } finally {
      await db.close();
    }
  });
});
