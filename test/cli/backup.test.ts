// `admin backup FILE` while the service runs, `admin restore FILE` into a fresh DATA_DIR, and the
// command line's refusals: no store where DATA_DIR points, a restore over a store or beside a
// running service, a backup of PostgreSQL.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";

const usage = (url: string, key: string) =>
  fetch(`${url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });

describe("admin backup and restore of the embedded store", { timeout: scaled(180_000) }, () => {
  const root = mkdtempSync(join(tmpdir(), "media-api-backup-"));
  const services: RunningService[] = [];
  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    rmSync(root, { recursive: true, force: true });
  });
  const start = async (dataDir: string) => {
    const service = await startService({ DATA_DIR: dataDir, EXTRACTION_HOST: "off" });
    services.push(service);
    return service;
  };

  it("copies the store while the service runs; restored into a fresh DATA_DIR, it serves the same keys", async () => {
    const original = { DATA_DIR: join(root, "original") };
    const running = await start(original.DATA_DIR);
    expect((await runAdmin(["users", "create", "--email", "op@example.com"], original, "a long password\n")).code)
      .toBe(0);
    const key = (await runAdmin(["keys", "create", "--email", "op@example.com", "--tier", "FREE"], original)).stdout
      .trim();
    const passive = (await runAdmin(["keys", "create", "--email", "op@example.com", "--tier", "PRO"], original)).stdout
      .trim();
    const passiveId = (await runAdmin(["keys", "list"], original)).stdout.split("\n").find((row) =>
      row.includes(passive.slice(0, 10))
    )!.split("\t")[0]!;
    expect((await runAdmin(["keys", "passive", passiveId], original)).code).toBe(0);
    expect((await usage(running.url, key)).headers.get("x-ratelimit-remaining")).toBe("99");

    const file = join(root, "store.backup");
    const backup = await runAdmin(["backup", file], original);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/\t1 accounts\t2 keys\t/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).not.toContain(key);

    // Not over the running service's store.
    const beside = await runAdmin(["restore", file], original);
    expect(beside.code).toBe(1);
    expect(beside.stderr).toContain("stop it");
    expect(await running.stop()).toBe(0);

    const restored = { DATA_DIR: join(root, "restored") };
    const restore = await runAdmin(["restore", file], restored);
    expect(restore).toMatchObject({ code: 0, stderr: "" });
    const over = await runAdmin(["restore", file], restored);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("holds a store already");

    const again = await start(restored.DATA_DIR);
    const answer = await usage(again.url, key);
    expect(answer.status).toBe(200);
    // Its count came along: the call before the backup and this one.
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("98");
    expect((await usage(again.url, passive)).status).toBe(403);
    // New rows go on after the restored ones.
    expect((await runAdmin(["users", "create", "--email", "two@example.com"], restored, "a long password\n")).code)
      .toBe(0);
    const users = (await runAdmin(["users", "list"], restored)).stdout;
    expect(users).toMatch(/\n1\top@example\.com\t/);
    expect(users).toMatch(/\n2\ttwo@example\.com\t/);
  });

  it("refuses a command where DATA_DIR holds no store, naming the folder, and makes none", async () => {
    const astray = join(root, "no-such-folder");
    const made = await runAdmin(
      ["users", "create", "--email", "op@example.com"],
      { DATA_DIR: astray },
      "a long password\n",
    );
    expect(made.code).toBe(1);
    expect(made.stderr).toContain(`No store in DATA_DIR (${astray})`);
    expect(existsSync(astray)).toBe(false);
    const backup = await runAdmin(["backup", join(root, "none.backup")], { DATA_DIR: astray });
    expect(backup.code).toBe(1);
    expect(existsSync(astray)).toBe(false);
  });

  it("sends PostgreSQL's operator to pg_dump", async () => {
    const postgres = await runAdmin(["backup", join(root, "pg.backup")], {
      DATA_DIR: root,
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    });
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toContain("pg_dump");
  });
});
