// An unprivileged system user for the tests that run the service as one (as systemd's `media-api`
// user does): made once with useradd, which needs root.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
  /** `command` run as this user, in the same process (setpriv execs it: signals reach it). */
  command(command: string[]): string[];
}

const NAME = "media-api-test";

export function serviceUser(): ServiceUser {
  try {
    execFileSync("id", ["-u", NAME], { stdio: "ignore" });
  } catch {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", NAME]);
  }
  const id = (flag: string) => Number(execFileSync("id", [flag, NAME], { encoding: "utf8" }).trim());
  return {
    name: NAME,
    uid: id("-u"),
    gid: id("-g"),
    command: (command) => ["setpriv", `--reuid=${NAME}`, `--regid=${NAME}`, "--clear-groups", "--", ...command],
  };
}

/**
 * What the user runs, dist/ and the packages it imports (npm's production tree), in a folder of
 * mode 0755 under TMPDIR: a clone may sit in a folder only its owner may enter (root's home, a
 * home folder on Debian 12), where the user could not reach dist/node.mjs. Hard links where the
 * file system allows (no bytes copied), copies where it does not.
 */
export function readableCopy(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), "media-api-user-run-"));
  chmodSync(root, 0o755);
  for (const path of ["package.json", "dist", ...productionPackages()]) {
    const target = join(root, path);
    const linked = spawnSync("cp", ["-al", "--parents", path, root], { stdio: "ignore" });
    if (linked.status !== 0) cpSync(path, target, { recursive: true });
  }
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** The folders of the packages the service needs, relative to the clone, outermost only. */
function productionPackages(): string[] {
  // npm ls says which packages it finds amiss on stderr and by its exit code; the list is still whole.
  const listed = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { encoding: "utf8" }).stdout;
  const folders = listed.split("\n").map((line) => relative(process.cwd(), line)).filter((path) =>
    path.startsWith("node_modules/")
  );
  return folders.filter((path) => !folders.some((outer) => path.startsWith(`${outer}/`)));
}
