// The built service and command line under Node 20 (the official binary, pinned in
// test/e2e/node-lines): they stop at once with one clear line, before anything else runs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeLineBinary } from "../helpers/node-lines.ts";
import { baseEnv } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";

describe("under Node 20", () => {
  const root = mkdtempSync(join(tmpdir(), "media-api-node20-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(["dist/node.mjs", "dist/admin.mjs"])(
    "%s refuses to start with the one line that says what to do",
    (bundle) => {
      const dataDir = join(root, "data");
      const run = spawnSync(nodeLineBinary("node20"), [bundle, "users", "list"], {
        env: { ...baseEnv(), DATA_DIR: dataDir, PORT: "0" },
        encoding: "utf8",
        timeout: scaled(30_000),
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        /^media-api needs Node 22\.12 or newer; this is Node 20\.\d+\.\d+\. bash scripts\/setup-debian\.sh installs a supported Node \(docs\/operating\.md\)\.\n$/,
      );
      // Nothing was started: no store, no listening.
      expect(existsSync(dataDir)).toBe(false);
    },
  );
});
