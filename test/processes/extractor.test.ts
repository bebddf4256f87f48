import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { createCliExtractor } from "../../src/processes/extractor.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";

const dir = mkdtempSync(join(tmpdir(), "extractor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a failed tool's error line reaches the caller however much log surrounds it", async () => {
  // As yt-dlp's log looks with a traceback after its ERROR line: the line that says why is neither first nor last.
  const tool = join(dir, "yt-dlp");
  writeFileSync(
    tool,
    `#!/bin/sh\nhead -c 20000 /dev/zero | tr '\\0' a >&2\necho >&2\necho 'ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found' >&2\nhead -c 20000 /dev/zero | tr '\\0' b >&2\nexit 1\n`,
  );
  chmodSync(tool, 0o755);
  const extractor = createCliExtractor(nodeProcesses, { "yt-dlp": tool, "gallery-dl": tool });
  const output = await extractor.run({ tool: "yt-dlp", args: [], timeoutMs: 10_000 });
  expect(output.exitCode).toBe(1);
  expect(output.stderr).toContain("\nERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found\n");
  expect(output.stderr.length).toBeLessThanOrEqual(8192);
});
