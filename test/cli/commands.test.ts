// The operator's commands of issue 36 in-process, on the embedded store: a new password for an
// account (its sessions end, the old password no longer signs in) and a new link secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../src/auth/password.ts";
import { createAdminChannel } from "../../src/cli/channel.ts";
import { runAdminCommand } from "../../src/cli/commands.ts";
import type { PlatformChecks } from "../../src/doctor/checker.ts";
import { createAccount, findAccountByEmail } from "../../src/store/accounts.ts";
import { readLinkSecret } from "../../src/store/link-secret.ts";
import { createSession, findSession } from "../../src/store/sessions.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

const now = new Date("2026-01-01T00:00:00.000Z");

let store: TestStore;
beforeAll(async () => {
  store = await openTestStore("pglite");
});
afterAll(() => store?.close());

describe("admin users password and links rotate", () => {
  it("sets a new password from stdin and ends the account's sessions", async () => {
    const account = (await createAccount(store.db, "lost@example.com", await hashPassword("the old password", 1000)))!;
    const { token } = await createSession(store.db, account.id, now);
    const result = await runAdminCommand(
      store.db,
      ["users", "password", "--email", "Lost@Example.com"],
      "the new password\n",
      now,
    );
    expect(result).toEqual({ code: 0, stdout: `${account.id}\tlost@example.com\tpassword set\n`, stderr: "" });
    const stored = (await findAccountByEmail(store.db, "lost@example.com"))!.passwordHash;
    expect(await verifyPassword("the new password", stored)).toBe(true);
    expect(await verifyPassword("the old password", stored)).toBe(false);
    expect(await findSession(store.db, token, now)).toBeNull();

    expect(
      (await runAdminCommand(store.db, ["users", "password", "--email", "lost@example.com"], "short\n", now)).stderr,
    ).toContain("at least 10");
    expect((await runAdminCommand(store.db, ["users", "password", "--email", "lost@example.com"], "", now)).stderr)
      .toContain("users password --email E < password.txt");
    expect(
      (await runAdminCommand(
        store.db,
        ["users", "password", "--email", "nobody@example.com"],
        "long enough pass\n",
        now,
      )).stderr,
    ).toContain("No account with email nobody@example.com");
  });

  it("replaces the link secret", async () => {
    const before = await readLinkSecret(store.db);
    expect(before).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await runAdminCommand(store.db, ["links", "rotate"], "", now)).toEqual({
      code: 0,
      stdout: "link secret rotated\n",
      stderr: "",
    });
    const after = await readLinkSecret(store.db);
    expect(after).not.toBe(before);
    expect(after).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await runAdminCommand(store.db, ["links", "--help"], "", now)).stdout).toContain("admin links rotate");
  });
});

describe("the admin socket's channel", () => {
  it("answers what is no command with 400 and says what it takes, and runs a command", async () => {
    const channel = createAdminChannel(
      store.db,
      { checks: {} as PlatformChecks, jars: { listing: async () => [] } },
      () => now,
    );
    const run = (body: string) => channel(new Request("http://admin/run", { method: "POST", body }));
    for (const body of ["{not json", "[]", '{"argv": "users", "stdin": ""}', '{"argv": [1], "stdin": ""}']) {
      const answer = await run(body);
      expect(answer.status, body).toBe(400);
      expect((await answer.json()).error, body).toContain('"argv"');
    }
    const listed = await run(JSON.stringify({ argv: ["users", "list"], stdin: "" }));
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ code: 0 });
  });
});
