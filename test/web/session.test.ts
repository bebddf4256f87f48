import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/auth/password.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { createSession, SESSION_TTL_MS } from "../../src/store/sessions.ts";
import { clearedCookie, cookie, isHttps, readCookie, readSession, sessionCookie } from "../../src/web/session.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("cookies", () => {
  it("readCookie() finds the named cookie among others and treats an empty one as absent", () => {
    const req = request("http://x/", { cookie: "a=1; sid=tok-en_1; presid=no" });
    expect(readCookie(req, "sid")).toBe("tok-en_1");
    expect(readCookie(req, "pre")).toBeNull();
    expect(readCookie(request("http://x/", { cookie: "sid=" }), "sid")).toBeNull();
    expect(readCookie(request("http://x/"), "sid")).toBeNull();
  });

  it("cookie() is HttpOnly and SameSite=Lax, and Secure exactly when the browser uses https", () => {
    expect(sessionCookie(request("http://x/"), "t")).toBe(
      `sid=t; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_MS / 1000}`,
    );
    expect(cookie(request("https://x/"), "pre", "s")).toBe("pre=s; Path=/; HttpOnly; SameSite=Lax; Secure");
    expect(isHttps(request("http://x/", { "x-forwarded-proto": "https" }))).toBe(true);
    expect(clearedCookie(request("http://x/", { "x-forwarded-proto": "https" }), "sid")).toBe(
      "sid=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure",
    );
  });
});

describe("readSession()", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("pglite");
  });
  afterAll(() => store.close());

  it("tells a signed-in request from one without a cookie and one whose session has ended", async () => {
    const account = (await createAccount(store.db, "s@example.com", await hashPassword("x".repeat(12), 1000)))!;
    const now = new Date("2026-01-01T00:00:00Z");
    const { token } = await createSession(store.db, account.id, now);
    const withCookie = request("http://x/", { cookie: `sid=${token}` });
    expect(await readSession(store.db, withCookie, now)).toMatchObject({
      kind: "signed-in",
      token,
      session: { accountId: account.id, email: "s@example.com" },
    });
    expect(await readSession(store.db, withCookie, new Date(now.getTime() + SESSION_TTL_MS))).toEqual({
      kind: "ended",
    });
    expect(await readSession(store.db, request("http://x/", { cookie: "sid=forged" }), now)).toEqual({ kind: "ended" });
    expect(await readSession(store.db, request("http://x/"), now)).toEqual({ kind: "none" });
  });
});
