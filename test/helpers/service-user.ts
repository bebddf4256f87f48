// An unprivileged system user for the tests that run the service as one (as systemd's `media-api`
// user does): made once with useradd, which needs root.
import { execFileSync } from "node:child_process";

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
