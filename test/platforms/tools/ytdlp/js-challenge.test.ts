// yt-dlp's challenge solver for YouTube, run for real with the runtime the service gives it: the
// packaged Deno, yt-dlp's scripts from its own package, and the solver's libraries from a local
// stand-in for the npm registry (ejs:npm). Only the player script is a stand-in.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { resolveJsRuntime } from "../../../../src/platforms/tools/ytdlp/js-runtime.ts";
import { automaticJsRuntime } from "../../../../src/runtime/node/js-runtime.ts";
import { type FakeNpmRegistry, startFakeNpmRegistry } from "../../../fakes/npm-registry.ts";
import { scaled } from "../../../helpers/slowness.ts";

const run = promisify(execFile);
let registry: FakeNpmRegistry;
let home: string;

beforeAll(async () => {
  registry = await startFakeNpmRegistry(["meriyah", "astring"]);
  home = await mkdtemp(path.join(tmpdir(), "jsc-"));
});
afterAll(async () => {
  await Promise.all([registry?.close(), rm(home, { recursive: true, force: true })]);
});

/** The Python that runs the machine's yt-dlp (its script's first line). */
async function ytdlpPython(): Promise<string> {
  const { stdout } = await run("sh", ["-c", "command -v yt-dlp"]);
  const shebang = (await readFile(stdout.trim(), "utf8")).split("\n")[0]!;
  return /^#!\s*(\S+)/.exec(shebang)![1]!;
}

test(
  "yt-dlp solves challenges in the packaged Deno, with its libraries from the npm registry",
  { timeout: scaled(60_000) },
  async () => {
    const runtime = resolveJsRuntime("auto", automaticJsRuntime)!;
    const { stdout, stderr } = await run(await ytdlpPython(), ["test/fakes/jsc-probe.py", runtime], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        DENO_DIR: path.join(home, "deno"),
        NPM_CONFIG_REGISTRY: registry.url,
        DENO_CERT: registry.caFile,
        no_proxy: "127.0.0.1",
      },
    });
    expect(stdout).toContain("available: True");
    expect(stderr).toMatch(/Using challenge solver lib script v[\d.]+ \(source: builtin, variant: deno_npm\)/);
    expect(stderr).toMatch(/Using challenge solver core script v[\d.]+ \(source: builtin/);
    expect(stderr).toContain(`Running deno: ${runtime.slice("deno:".length)} run`);
    // The solver ran in Deno and looked at the player: a stand-in has nothing to solve.
    expect(stdout).toContain("answer: no solutions");
    expect(registry.requests.filter((p) => p.endsWith(".tgz")).sort()).toEqual([
      expect.stringMatching(/^\/astring\/-\//),
      expect.stringMatching(/^\/meriyah\/-\//),
    ]);
  },
);
