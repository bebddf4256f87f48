// A new embedded store starts from the data folder build.mjs made (dist/pglite-template, built by
// the global setup) instead of running initdb, and a folder that holds a database is left alone.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { openStore } from "../../src/store/open.ts";
import { scaled } from "../helpers/slowness.ts";

const template = path.resolve("dist/pglite-template");
// initdb writes a random system identifier into pg_control's first 8 bytes: a copy keeps it.
const systemId = (folder: string) =>
  readFileSync(path.join(folder, "global/pg_control")).subarray(0, 8).toString("hex");

describe("openStore() on the embedded store", () => {
  const made: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "store-open-"));
    made.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test("an empty DATA_DIR starts as a copy of the template, migrated, and keeps its rows on reopening", {
    timeout: scaled(120_000),
  }, async () => {
    const DATA_DIR = dataDir();
    const db = await openStore({ DATA_DIR }, { template });
    expect(systemId(path.join(DATA_DIR, "pglite"))).toBe(systemId(template));
    expect((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations"))[0]!.n)
      .toBeGreaterThanOrEqual(3);
    await db.exec("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)");
    await db.close();

    const again = await openStore({ DATA_DIR }, { template });
    expect(await again.query("SELECT x FROM kept")).toEqual([{ x: 7 }]);
    await again.close();
  });

  test("a data folder that holds anything is not replaced by the template", { timeout: scaled(120_000) }, async () => {
    const DATA_DIR = dataDir();
    const folder = path.join(DATA_DIR, "pglite");
    await (await openStore({ DATA_DIR }, { template: path.join(DATA_DIR, "no-template") })).close();
    const ownId = systemId(folder);
    expect(ownId).not.toBe(systemId(template));
    const db = await openStore({ DATA_DIR }, { template });
    expect(systemId(folder)).toBe(ownId);
    await db.close();
  });
});
