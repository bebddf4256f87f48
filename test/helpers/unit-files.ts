// Which test files are unit tests, for `npm run test:unit`: those whose imports, followed through
// every file of the repository they reach, reach no module that serves, connects, starts a process
// or a thread, or opens a store. The rule, not a list, decides, so a new test of a pure module is
// in at once, and a unit test that starts using a server or a store drops out by itself.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** What a unit test may not reach: the network, child processes, threads, the stores, a browser. */
export const NOT_IN_UNIT_TESTS = new Set([
  "node:child_process",
  "node:cluster",
  "node:dgram",
  "node:dns",
  "node:dns/promises",
  "node:http",
  "node:http2",
  "node:https",
  "node:net",
  "node:tls",
  "node:worker_threads",
  "postgres",
  "pg-boss",
  "@electric-sql/pglite",
  "playwright-core",
]);

// `import`/`export ... from "x"`, `import "x"` and `import("x")`; `import type` is erased, so it is not followed.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:[^;"']*?\sfrom\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The modules `file` imports: repository files as absolute paths, packages by their name. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((match) => {
    const specifier = (match[1] ?? match[2])!;
    return specifier.startsWith(".") ? resolve(dirname(file), specifier.replace(/\?raw$/, "")) : specifier;
  });
}

/** The first module of NOT_IN_UNIT_TESTS that `file` reaches through its imports, or null. */
export function forbiddenReach(file: string, seen = new Set<string>()): string | null {
  if (seen.has(file)) return null;
  seen.add(file);
  for (const imported of importsOf(file)) {
    if (NOT_IN_UNIT_TESTS.has(imported)) return imported;
    if (imported.startsWith("/") && imported.endsWith(".ts")) {
      const found = forbiddenReach(imported, seen);
      if (found) return `${found} (through ${relative(process.cwd(), imported)})`;
    }
  }
  return null;
}

function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The unit tests of the suite under `root`, as paths relative to it. */
export function unitTestFiles(root = process.cwd()): string[] {
  return testFiles(join(root, "test")).filter((file) => forbiddenReach(file) === null).map((file) =>
    relative(root, file)
  ).sort();
}
