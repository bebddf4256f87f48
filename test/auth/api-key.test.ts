import { describe, expect, it } from "vitest";
import { displayPrefix, generateKey, hashKey, isWellFormedKey } from "../../src/auth/api-key.ts";
import { fromBase64Url } from "../../src/util/bytes.ts";

describe("API keys", () => {
  it("generateKey() makes xva_ plus 32 random bytes in base64url, and its SHA-256", async () => {
    const a = await generateKey();
    const b = await generateKey();
    expect(a.plain).toMatch(/^xva_[A-Za-z0-9_-]{43}$/);
    expect(fromBase64Url(a.plain.slice(4))).toHaveLength(32);
    expect(a.plain).not.toBe(b.plain);
    expect(a.hash).toBe(await hashKey(a.plain));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.displayPrefix).toBe(a.plain.slice(0, 10));
  });

  it("hashKey() is SHA-256 in hex", async () => {
    expect(await hashKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("isWellFormedKey() accepts only the exact shape", () => {
    expect(isWellFormedKey("xva_" + "a".repeat(43))).toBe(true);
    for (
      const bad of [
        "",
        "xva_",
        "xva_" + "a".repeat(42),
        "xva_" + "a".repeat(44),
        "XVA_" + "a".repeat(43),
        "xva_" + "a".repeat(42) + "=",
      ]
    ) {
      expect(isWellFormedKey(bad)).toBe(false);
    }
  });

  it("displayPrefix() shows six characters after the prefix", () => {
    expect(displayPrefix("xva_ABCDEFGHIJ")).toBe("xva_ABCDEF");
  });
});
