// The operator command line, run as a process against the built bundle: while the service runs
// (embedded store through the admin socket, or a PostgreSQL server directly) and while it does not.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hashKey } from "../../src/auth/api-key.ts";
import { createTestDatabase } from "../helpers/stores.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";

const usage = (url: string, key: string) =>
  fetch(`${url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });

async function walkThrough(env: Record<string, string>, service: RunningService) {
  const email = "Operator@Example.com";
  const created = await runAdmin(["users", "create", "--email", email], env, "a long enough password\n");
  expect(created).toMatchObject({ code: 0, stderr: "" });
  expect(created.stdout).toMatch(/^\d+\toperator@example\.com\n$/);
  const duplicate = await runAdmin(["users", "create", "--email", email], env, "a long enough password\n");
  expect(duplicate.code).toBe(1);
  expect(duplicate.stderr).toContain("already exists");

  const made = await runAdmin([
    "keys",
    "create",
    "--email",
    email,
    "--tier",
    "PRO",
    "--name",
    "ci",
    "--expires-days",
    "30",
  ], env);
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

  // Through the service's socket too: the password comes on stdin, the rotation needs nothing.
  const password = await runAdmin(["users", "password", "--email", email], env, "another long password\n");
  expect(password).toMatchObject({ code: 0, stderr: "" });
  expect(password.stdout).toMatch(/^\d+\toperator@example\.com\tpassword set\n$/);
  expect(await runAdmin(["links", "rotate"], env)).toMatchObject({ code: 0, stdout: "link secret rotated\n" });

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
  expect((await runAdmin(["users", "create", "--email", "x@example.com"], env, "short\n")).stderr).toContain(
    "at least",
  );
}

// Each test runs the command line a dozen or more times, one process after another (about a second
// each on a quiet machine, several on a busy one, more where it opens the embedded store itself):
// the cap bounds a hung command, it does not time a fast one.
describe("the admin command line", { timeout: scaled(180_000) }, () => {
  // The services here only answer the admin socket and /usage: no extraction host (about 3 CPU seconds a start).
  const withoutHost = (env: Record<string, string>) => startService({ ...env, EXTRACTION_HOST: "off" });
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("works while the service runs on the embedded store, through its admin socket", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "media-api-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir };
    const service = await withoutHost(env);
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
    const dataDir = mkdtempSync(join(tmpdir(), "media-api-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir };
    const service = await withoutHost(env);
    cleanups.push(() => service.stop());
    await walkThrough(env, service);

    // Without DATABASE_URL the command would open an empty embedded store in the same folder.
    const astray = await runAdmin(["users", "list"], { DATA_DIR: dataDir });
    expect(astray.code).toBe(1);
    expect(astray.stderr).toContain("DATABASE_URL");
    expect(astray.stdout).toBe("");
    expect(existsSync(join(dataDir, "pglite"))).toBe(false);
  });

  it("prints its usage for --help, -h and help, and each command's own for its --help, without a store or a good configuration", async () => {
    // Help reads no configuration: a bad one does not stand in its way.
    const env = { PORT: "eighty" };
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const help = await runAdmin(args, env);
      expect(help, args.join(" ")).toMatchObject({ code: 0, stderr: "" });
      expect(help.stdout, args.join(" ")).toMatch(/^Usage/);
      for (
        const command of [
          "users create --email E",
          "users list",
          "keys create --email E --tier FREE|PRO|GOLD",
          "keys list [--email E]",
          "keys tier <apiKeyId>",
          "keys delete <apiKeyId>",
        ]
      ) {
        expect(help.stdout, args.join(" ")).toContain(`admin ${command}`);
      }
    }
    for (
      const args of [["keys", "create", "--help"], ["keys", "create", "-h"], ["help", "keys", "create"], [
        "keys",
        "create",
        "--email",
        "a@example.com",
        "--help",
      ]]
    ) {
      const help = await runAdmin(args, env);
      expect(help, args.join(" ")).toMatchObject({ code: 0, stderr: "" });
      expect(help.stdout, args.join(" ")).toMatch(
        /^Usage: admin keys create --email E --tier FREE\|PRO\|GOLD \[--name N\] \[--expires-days D\] \[--shape xva\|uuid\]\n.*prints only the key/,
      );
    }
    const users = await runAdmin(["users", "create", "--help"], env);
    expect(users).toMatchObject({ code: 0, stderr: "" });
    expect(users.stdout).toMatch(/^Usage: admin users create --email E\n.*stdin/);
    const keys = await runAdmin(["keys", "--help"], env);
    expect(keys.stdout).toContain("admin keys list");
    expect(keys.stdout).not.toContain("admin users");
    const unknown = await runAdmin(["frobnicate", "--help"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown command: frobnicate\n/);
  });

  it("takes tiers in any case, names an account that does not exist, and says when no password came on stdin", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "media-api-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir };
    expect((await runAdmin(["users", "create", "--email", "casual@example.com"], env, "a long enough password\n")).code)
      .toBe(0);
    const free = await runAdmin(["keys", "create", "--email", "casual@example.com", "--tier", "free"], env);
    expect(free.code).toBe(0);
    const id = (await runAdmin(["keys", "list"], env)).stdout.split("\n")[1]!.split("\t")[0]!;
    expect((await runAdmin(["keys", "tier", id, "Pro"], env)).stdout).toBe(`${id}\tPRO\n`);
    expect((await runAdmin(["keys", "list", "--email", "casual@example.com"], env)).stdout).toContain("\tPRO\t");

    const nobody = await runAdmin(["keys", "list", "--email", "nobody@example.com"], env);
    expect(nobody.code).not.toBe(0);
    expect(nobody.stdout).toBe("");
    expect(nobody.stderr).toContain("No account with email nobody@example.com");

    for (const stdin of ["", "\n"]) {
      const silent = await runAdmin(["users", "create", "--email", "quiet@example.com"], env, stdin);
      expect(silent.code, JSON.stringify(stdin)).not.toBe(0);
      expect(silent.stderr, JSON.stringify(stdin)).toMatch(
        /^No password came on stdin: pipe it in \(`npm run admin -- users create --email E < password\.txt`\)/,
      );
      expect(silent.stderr).not.toContain("at least");
    }
    expect((await runAdmin(["users", "list"], env)).stdout).not.toContain("quiet@example.com");
  });

  it("leaves the bundles as they are when they are newer than every source (`npm run admin`), and builds them again after a change", async () => {
    // In a copy: the bundles of this checkout serve the other tests meanwhile.
    const copy = mkdtempSync(join(tmpdir(), "media-api-build-"));
    cleanups.push(async () => rmSync(copy, { recursive: true, force: true }));
    for (const file of ["build.mjs", "package.json", "package-lock.json"]) cpSync(file, join(copy, file));
    cpSync("src", join(copy, "src"), { recursive: true });
    cpSync("extraction-host", join(copy, "extraction-host"), { recursive: true });
    cpSync("dist/pglite-template", join(copy, "dist/pglite-template"), { recursive: true });
    cpSync("dist/pglite-template.version", join(copy, "dist/pglite-template.version"));
    symlinkSync(resolve("node_modules"), join(copy, "node_modules"));
    const build = () =>
      execFileSync(process.execPath, ["build.mjs", "--quiet", "--if-stale"], { cwd: copy, stdio: "pipe" });
    const builtAt = () => statSync(join(copy, "dist/admin.mjs")).mtimeMs;
    expect(JSON.parse(readFileSync("package.json", "utf8")).scripts.admin).toBe(
      "node build.mjs --quiet --if-stale && node dist/admin.mjs",
    );

    build();
    const first = builtAt();
    build();
    expect(builtAt()).toBe(first);
    const later = new Date(Date.now() + 2_000);
    utimesSync(join(copy, "src/cli/commands.ts"), later, later);
    build();
    const second = builtAt();
    expect(second).toBeGreaterThan(first);
    // The host's Python program is bundled too: a change to it alone builds again.
    const evenLater = new Date(Date.now() + 4_000);
    utimesSync(join(copy, "extraction-host/host.py"), evenLater, evenLater);
    build();
    expect(builtAt()).toBeGreaterThan(second);
  });

  it("stops the service with a message naming the variable when the configuration is bad", async () => {
    await expect(startService({ PORT: "eighty" })).rejects.toThrow(/PORT: .*"eighty"/);
    await expect(startService({ DATABASE_URL: "mysql://x" })).rejects.toThrow(/DATABASE_URL/);
  });
});
