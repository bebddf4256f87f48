// What nothing caught reaches the service's handler on each runtime, instead of the runtime's own
// report: an exception thrown from a timer and a rejection nobody handles, each in a process that
// runs the runtime's entry process and exits with the handler's code.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { exitOnUncaught } from "../../src/service.ts";
import { scaled } from "../helpers/slowness.ts";

const runtimes = [
  { name: "node", command: [process.execPath], module: "src/runtime/node/entry-process.ts", exported: "nodeProcess" },
  {
    name: "bun",
    command: [resolve("node_modules/.bin/bun")],
    module: "src/runtime/node/entry-process.ts",
    exported: "nodeProcess",
  },
  {
    name: "deno",
    command: [resolve("node_modules/.bin/deno"), "run", "--allow-all"],
    module: "src/runtime/deno-process.ts",
    exported: "denoProcess",
  },
];

const failures = [
  {
    what: "an exception thrown from a timer",
    message: "nobody catches this",
    code: `setTimeout(() => { throw new Error("nobody catches this"); }, 0);`,
  },
  {
    what: "a rejection nobody handles",
    message: "nobody handles this",
    code: `Promise.reject(new Error("nobody handles this"));`,
  },
];

describe("the entry process's handler of what nothing caught", () => {
  const root = mkdtempSync(join(tmpdir(), "media-api-uncaught-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  for (const { name, command, module, exported } of runtimes) {
    it.each(failures)(`under ${name}, gets $what and exits with its code`, ({ what, message, code }) => {
      const script = join(root, `${name}-${what.replaceAll(" ", "-")}.ts`);
      writeFileSync(
        script,
        `import { ${exported} as entry } from ${JSON.stringify(resolve(module))};
entry.onUncaught((error) => { console.log("handled: " + (error as Error).message); entry.exit(7); });
${code}
`,
      );
      const run = spawnSync(command[0]!, [...command.slice(1), script], { encoding: "utf8", timeout: scaled(60_000) });
      expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 7, stdout: `handled: ${message}\n` });
      // The runtime printed no report of its own.
      expect(run.stderr).not.toContain("nobody");
    });
  }
});

describe("exitOnUncaught", () => {
  it("logs the error with its stack as one of the service's lines, then exits 1", () => {
    const lines: string[] = [];
    const exits: number[] = [];
    const crashed = exitOnUncaught(createLogger("info", (line) => lines.push(line)), (code) => {
      exits.push(code);
      return undefined as never;
    });
    crashed(new Error("a stop's query after the store closed"));
    expect(exits).toEqual([1]);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: "error", msg: "an error nothing caught: exiting" });
    expect(line.error).toMatch(/^Error: a stop's query after the store closed\n\s+at /);
  });
});
