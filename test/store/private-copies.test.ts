// Nothing of the operator's left behind: the tools' copies of COOKIES_FILE live in
// DATA_DIR/private-copies/<instance>/, and a start removes the folders of instances that no
// longer run. Against the built service killed with -9 in the middle of an extraction, and on
// its own with folders of a live, a dead and a recycled process id.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startTimeOf } from "../../src/store/data-dir-lock.ts";
import { PRIVATE_COPIES, privateCopies } from "../../src/store/private-copies.ts";
import { baseEnv, nodeCommand, runAdmin, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function folder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An operator's COOKIES_FILE holding `text`, beside `dataDir` (not in it: the copies are what is looked for there). */
function cookieFileBeside(dataDir: string, text: string): string {
  const cookies = join(dataDir, "..", `${dataDir.split("/").at(-1)}-cookies.txt`);
  writeFileSync(cookies, text);
  cleanups.push(() => rmSync(cookies, { force: true }));
  return cookies;
}

/** The cookie copies under `root`: paths of every cookies.txt, at any depth. */
function copiesIn(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith("cookies.txt"));
}

describe("the private copies folder", () => {
  it("removes the folders of instances that no longer run, and keeps a running one's", async () => {
    const dataDir = folder("private-copies-");
    const root = join(dataDir, PRIVATE_COPIES);
    const live = spawn("sleep", ["60"]);
    cleanups.push(() => live.kill());
    await once(live, "spawn");
    const leave = (name: string) => {
      mkdirSync(join(root, name, "media-api-cookies-x"), { recursive: true });
      writeFileSync(join(root, name, "media-api-cookies-x", "cookies.txt"), "# Netscape HTTP Cookie File\n");
    };
    const liveName = `${live.pid}-${startTimeOf(live.pid!)}`;
    // A pid above Linux's pid_max, so no process has it; and this process's pid from an earlier start.
    for (const name of [liveName, "4194305-123", `${process.pid}-1`]) leave(name);

    const copies = privateCopies(dataDir);
    expect(readdirSync(root).sort()).toEqual([liveName, copies.path.split("/").at(-1)!].sort());
    expect(copiesIn(root)).toEqual([`${liveName}/media-api-cookies-x/cookies.txt`]);
    copies.remove();
    expect(readdirSync(root)).toEqual([liveName]);
  });
});

describe("the service", () => {
  it(
    "leaves no cookie copy in TMPDIR, and its next start removes the copies a kill -9 left",
    { timeout: scaled(120_000) },
    async () => {
      // A page host that takes the request and never answers: the extraction stays in flight.
      const held: Socket[] = [];
      const silent = createServer((socket) => void held.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      cleanups.push(() => {
        for (const socket of held) socket.destroy();
        silent.close();
      });
      const host = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const dataDir = folder("private-copies-service-");
      const temp = folder("private-copies-tmp-");
      const cookies = cookieFileBeside(
        dataDir,
        "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\toperators-secret\n",
      );
      const env = {
        DATA_DIR: dataDir,
        TMPDIR: temp,
        COOKIES_FILE: cookies,
        EXTRA_PAGE_HOSTS: host,
        EXTRACT_TIMEOUT_S: "120",
      };

      const first = await startService(env);
      cleanups.push(() => first.stop());
      expect((await runAdmin(["users", "create", "--email", "op@example.com"], env, "a long enough password\n")).code)
        .toBe(0);
      const key = (await runAdmin(["keys", "create", "--email", "op@example.com", "--tier", "GOLD"], env)).stdout
        .trim();
      // The answer, should one come before the copy shows (it must not: the page never answers).
      let answered: string | null = null;
      void fetch(`${first.url}/api/v1/post?url=${encodeURIComponent(`http://${host}/post`)}`, {
        headers: { authorization: `Bearer ${key}` },
      }).then(
        async (response) => (answered = `${response.status} ${await response.text()}`),
        () => {},
      );
      const root = join(dataDir, PRIVATE_COPIES);
      await expect.poll(() => copiesIn(root).length > 0 || answered !== null, { timeout: scaled(60_000) }).toBe(true);
      expect({ copies: copiesIn(root).length, answered }).toEqual({ copies: 1, answered: null });
      expect(copiesIn(temp)).toEqual([]);

      first.child.kill("SIGKILL");
      await once(first.child, "exit");
      expect(copiesIn(root)).toHaveLength(1);

      const second = await startService(env);
      cleanups.push(() => second.stop());
      expect(copiesIn(root)).toEqual([]);
      await second.stop();
      expect(readdirSync(root)).toEqual([]);
    },
  );

  it(
    "stops cleanly on a SIGTERM that comes while it starts, removing its own copies folder",
    { timeout: scaled(120_000) },
    async () => {
      const dataDir = folder("private-copies-early-");
      const cookies = cookieFileBeside(dataDir, "# Netscape HTTP Cookie File\n");
      // Not startService: it waits for "listening", and this stop must come before.
      const [executable, ...args] = nodeCommand;
      const child = spawn(executable!, args, {
        env: { ...baseEnv(), PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, COOKIES_FILE: cookies },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let said = "";
      for (const stream of [child.stdout, child.stderr]) {
        stream.on(
          "data",
          (chunk: Buffer) => (said += chunk.toString()),
        );
      }
      const exited = once(child, "exit");
      cleanups.push(() => child.kill("SIGKILL"));
      // Its folder is made first thing, before the store opens: the start is under way.
      const root = join(dataDir, PRIVATE_COPIES);
      await expect.poll(() => existsSync(root) && readdirSync(root).length > 0, { timeout: scaled(60_000) }).toBe(true);
      child.kill("SIGTERM");
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(said).toContain('"msg":"stopped"');
      expect(readdirSync(root)).toEqual([]);
    },
  );
});
