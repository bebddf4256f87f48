// `npm run test:unit` runs the tests the rule of test/helpers/unit-files.ts picks: none of them may
// start what the rule keeps out, however it reaches it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { forbiddenReach, unitTestFiles } from "./helpers/unit-files.ts";

/** What starts a server, a store, a process or a thread in a test, by the helpers' and Node's names. */
const STARTS =
  /\b(startService|startFake\w*|startMediaSite|startNginx|openTestStore|createTestDatabase|buildTestApp|serveNode|createServer|spawn|spawnSync|execFile|execFileSync|new Worker)\(/;

describe("the unit tests", () => {
  const files = unitTestFiles();

  test("are the tests of the pure modules, and there are some of each kind", () => {
    expect(files).toEqual(expect.arrayContaining(["test/util/semaphore.test.ts", "test/media/plan.test.ts"]));
    expect(files).not.toContain("test/service.test.ts");
    expect(files).not.toContain("test/jobs/queue.test.ts");
  });

  test("start no server, store, process or thread", () => {
    const starting = files.filter((file) => STARTS.test(readFileSync(join(process.cwd(), file), "utf8")));
    expect(starting).toEqual([]);
  });

  test("the rule follows imports through the helpers to what they start", () => {
    expect(forbiddenReach(join(process.cwd(), "test/helpers/stores.ts"))).toMatch(/postgres|pglite/);
    expect(forbiddenReach(join(process.cwd(), "test/handlers/download-limits.test.ts"))).toMatch(/node:http|node:net/);
    expect(forbiddenReach(join(process.cwd(), "test/util/semaphore.test.ts"))).toBeNull();
  });
});
