// Sessions on both stores: the token opens the session until it ends, and only its hash is kept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/auth/password.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { createSession, deleteSession, findSession, SESSION_TTL_MS } from "../../src/store/sessions.ts";
import { sha256Hex } from "../../src/util/bytes.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";

const now = new Date("2026-01-01T00:00:00.000Z");
const later = (ms: number) => new Date(now.getTime() + ms);

describe.each(storeKinds)("sessions on %s", (kind) => {
  let store: TestStore;
  let accountId: number;
  beforeAll(async () => {
    store = await openTestStore(kind);
    accountId = (await createAccount(store.db, "Owner@Example.com", await hashPassword("x".repeat(12), 1000)))!.id;
  });
  afterAll(() => store.close());

  it("createSession() gives a random token that findSession() resolves to the account until it ends", async () => {
    const { token, expiresAt } = await createSession(store.db, accountId, now);
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(expiresAt).toEqual(later(SESSION_TTL_MS));
    expect((await createSession(store.db, accountId, now)).token).not.toBe(token);
    expect(await findSession(store.db, token, later(SESSION_TTL_MS - 1))).toEqual({
      accountId,
      email: "owner@example.com",
      expiresAt,
    });
    expect(await findSession(store.db, token, later(SESSION_TTL_MS))).toBeNull();
    // One character changed (to another one, whatever the token ends with) finds nothing.
    const tampered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect(await findSession(store.db, tampered, now)).toBeNull();
  });

  it("the store keeps the token's SHA-256, never the token", async () => {
    const { token } = await createSession(store.db, accountId, now);
    const rows = await store.db.query<{ token_hash: string }>("SELECT token_hash FROM sessions");
    expect(rows.map((row) => row.token_hash)).toContain(await sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("deleteSession() ends a session, and a new session clears the ended ones", async () => {
    const { token } = await createSession(store.db, accountId, now);
    await deleteSession(store.db, token);
    expect(await findSession(store.db, token, now)).toBeNull();
    await createSession(store.db, accountId, later(SESSION_TTL_MS));
    const [row] = await store.db.query<{ count: number }>(
      "SELECT count(*)::integer AS count FROM sessions WHERE expires_at <= $1",
      [later(SESSION_TTL_MS)],
    );
    expect(row!.count).toBe(0);
  });
});
