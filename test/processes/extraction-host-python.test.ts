// The extraction host's own tests (extraction-host/test_host.py: its mechanics with stand-in
// tools), run here so that CI has one test runner.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { scaled } from "../helpers/slowness.ts";

test("the extraction host's Python tests pass", async () => {
  const run = await promisify(execFile)("python3", ["-m", "unittest", "discover", "-v", "-s", "extraction-host"], {
    timeout: scaled(120_000),
  }).catch(
    (error: { stderr?: string; message: string }) => ({ stderr: `${error.message}\n${error.stderr ?? ""}` }),
  );
  // unittest reports on stderr; on failure the assertion shows which case failed and why.
  expect(run.stderr).toMatch(/\nOK\n?$/);
  expect(run.stderr).toMatch(/^Ran 29 tests/m);
}, scaled(150_000));
