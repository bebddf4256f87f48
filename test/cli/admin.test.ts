// The operator command line, run as a process against the built bundle: while the service runs
// (embedded store through the admin socket, or a PostgreSQL server directly) and while it does not.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hashKey } from "../../src/auth/api-key.ts";
import { createTestDatabase } from "../helpers/stores.ts";
import { runAdmin, startService, type RunningService } from "../helpers/service.ts";

const usage = (url: string, key: string) => fetch(`${url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });

async function walkThrough(env: Record<string, string>, service: RunningService) {
  const email = "Operator@Example.com";
  const created = await runAdmin(["users", "create", "--email", email], env, "a long enough password\n");
  expect(created).toMatchObject({ code: 0, stderr: "" });
  expect(created.stdout).toMatch(/^\d+\toperator@example\.com\n$/);
  const duplicate = await runAdmin(["users", "create", "--email", email], env, "a long enough password\n");
  expect(duplicate.code).toBe(1);
  expect(duplicate.stderr).toContain("already exists");

  const made = await runAdmin(["keys", "create", "--email", email, "--tier", "PRO", "--name", "ci", "--expires-days", "30"], env);
  expect(made.code).toBe(0);
  const key = made.stdout.trim();
  expect(key).toMatch(/^xva_[A-Za-z0-9_-]{43}$/);
  expect(made.stdout).toBe(`${key}\n`);
  expect((await usage(service.url, key)).status).toBe(200);

  const listed = await runAdmin(["keys", "list", "--email", email], env);
  expect(listed.code).toBe(0);
  const [header, row] = listed.stdout.trim().split("\n");
  expect(header).toBe("id\tprefix\ttier\tcondition\tused24h\temail\tname\texpires\tlastUsed");
  const id = row!.split("\t")[0]!;
  expect(row).toContain(`${key.slice(0, 10)}...\tPRO\tusable\t1/10000\toperator@example.com\tci\t`);
  expect(listed.stdout).not.toContain(key.slice(10, 30));
  expect(listed.stdout).not.toContain((await hashKey(key)).slice(0, 16));

  expect((await runAdmin(["keys", "tier", id, "GOLD"], env)).code).toBe(0);
  expect((await usage(service.url, key)).headers.get("x-ratelimit-tier")).toBe("GOLD");
  expect((await runAdmin(["keys", "passive", id], env)).code).toBe(0);
  expect((await usage(service.url, key)).status).toBe(403);
  expect((await runAdmin(["keys", "usable", id], env)).code).toBe(0);
  expect((await usage(service.url, key)).status).toBe(200);

  const users = await runAdmin(["users", "list"], env);
  expect(users.stdout).toMatch(/\toperator@example\.com\t\S+\t1\n/);

  expect((await runAdmin(["keys", "delete", id], env)).code).toBe(0);
  expect((await usage(service.url, key)).status).toBe(401);
  const gone = await runAdmin(["keys", "delete", id], env);
  expect(gone.code).toBe(1);
  expect(gone.stderr).toContain(id);

  const wrong = await runAdmin(["keys", "create", "--email", email, "--tier", "PLATINUM"], env);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain("--tier must be FREE, PRO or GOLD");
  expect((await runAdmin(["frobnicate"], env)).code).toBe(2);
  expect((await runAdmin(["users", "create", "--email", "x@example.com"], env, "short\n")).stderr).toContain("at least");
}

describe("the admin command line", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("works while the service runs on the embedded store, through its admin socket", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "media-api-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir };
    const service = await startService(env);
    cleanups.push(() => service.stop());
    expect(statSync(join(dataDir, "admin")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, "admin/admin.sock")).isSocket()).toBe(true);
    await walkThrough(env, service);
    expect(await service.stop()).toBe(0);

    // With the service stopped the command line opens the store itself, and sees the same data.
    const offline = await runAdmin(["users", "list"], env);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain("operator@example.com");
  });

  it("works against a PostgreSQL server while the service runs", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const env = { DATABASE_URL: database.url };
    const service = await startService(env);
    cleanups.push(() => service.stop());
    await walkThrough(env, service);
  });

  it("stops the service with a message naming the variable when the configuration is bad", async () => {
    await expect(startService({ PORT: "eighty" })).rejects.toThrow(/PORT: .*"eighty"/);
    await expect(startService({ DATABASE_URL: "mysql://x" })).rejects.toThrow(/DATABASE_URL/);
  });
});
