import { describe, expect, it } from "vitest";
import { checkNewPassword, DEFAULT_ITERATIONS, hashPassword, verifyPassword } from "../../src/auth/password.ts";

describe("passwords", () => {
  it("hashPassword() salts, names its algorithm and cost, and verifyPassword() checks it", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(new RegExp(`^pbkdf2-sha256\\$${DEFAULT_ITERATIONS}\\$[\\w-]{22}\\$[\\w-]{43}$`));
    expect(await hashPassword("correct horse battery staple")).not.toBe(stored);
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", stored)).toBe(false);
  });

  it("verifyPassword() uses the cost stored with the hash, so a raised default keeps old hashes valid", async () => {
    const cheap = await hashPassword("old password here", 1000);
    expect(cheap.startsWith("pbkdf2-sha256$1000$")).toBe(true);
    expect(await verifyPassword("old password here", cheap)).toBe(true);
    expect(await verifyPassword("old password here", cheap.replace("$1000$", "$1001$"))).toBe(false);
  });

  it("verifyPassword() refuses malformed stored values", async () => {
    expect(await verifyPassword("x", "")).toBe(false);
    expect(await verifyPassword("x", "md5$1$a$b")).toBe(false);
  });

  it("checkNewPassword() wants at least ten characters", () => {
    expect(() => checkNewPassword("123456789")).toThrow(/at least 10/);
    expect(() => checkNewPassword("1234567890")).not.toThrow();
  });
});
