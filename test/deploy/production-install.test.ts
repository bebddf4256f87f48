// The install the systemd steps make: `npm ci && node build.mjs && npm prune --omit=dev`. After the
// prune only the production dependencies are there (no esbuild), and package-lock.json is newer than
// dist/; `npm run admin` must run the bundles as built. The prune is stood in for by a copy of the
// checkout whose node_modules holds only what `npm ls --omit=dev` lists.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scaled } from "../helpers/slowness.ts";

describe("npm run admin after npm prune --omit=dev", { timeout: scaled(120_000) }, () => {
  const copy = mkdtempSync(join(tmpdir(), "media-api-pruned-"));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it("lists the keys, with the bundles as built", () => {
    for (const file of ["build.mjs", "package.json", "package-lock.json"]) cpSync(file, join(copy, file));
    for (const folder of ["src", "extraction-host", "dist"]) cpSync(folder, join(copy, folder), { recursive: true });
    const production = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { encoding: "utf8" })
      .split("\n")
      .map((path) => path.slice(resolve(".").length + 1))
      .filter((path) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path));
    expect(production).toContain("node_modules/postgres");
    expect(production).not.toContain("node_modules/esbuild");
    for (const path of production) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      symlinkSync(resolve(path), join(copy, path));
    }
    // As the prune leaves it: the lock file newer than every bundle.
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(copy, "package-lock.json"), later, later);

    const dataDir = join(copy, "data");
    mkdirSync(dataDir);
    const run = spawnSync("npm", ["run", "-s", "admin", "--", "keys", "list"], {
      cwd: copy,
      env: { PATH: process.env.PATH, HOME: copy, DATA_DIR: dataDir },
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^id\tprefix\ttier\tcondition\tused24h/);
  });
});
