// scripts/setup-debian.sh run by a user who is not root, on a machine without sudo (a minimal
// Debian has none): where the tools are there already it goes on, and its warning says that it
// could not install for want of root, not that the network was out of reach.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scaled } from "../helpers/slowness.ts";
import { serviceUser } from "../helpers/service-user.ts";

const asRoot = process.getuid?.() === 0;
const hasSudo = spawnSync("sh", ["-c", "command -v sudo"]).status === 0;

describe.skipIf(!asRoot || hasSudo)("the setup script as a user who is neither root nor has sudo", () => {
  it("keeps the tools it finds and says why it did not update them", () => {
    const user = serviceUser();
    // The script on stdin: the clone may sit in a folder the user may not enter.
    const [command, ...args] = user.command(["bash", "-s", "--", "--update-tools"]);
    const run = spawnSync(command!, args, {
      input: readFileSync("scripts/setup-debian.sh"),
      cwd: "/",
      env: { PATH: process.env.PATH, HOME: "/tmp" },
      encoding: "utf8",
      timeout: scaled(60_000),
    });
    expect(run.status, run.stderr).toBe(0);
    for (const tool of ["yt-dlp", "gallery-dl"]) {
      expect(run.stderr).toContain(
        `WARNING: installing needs root, and ${user.name} is not root and has no sudo, so ${tool} stays at`,
      );
    }
    expect(run.stderr).not.toContain("could be reached");
  });
});
