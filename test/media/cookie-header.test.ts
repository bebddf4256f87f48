import { describe, expect, test } from "vitest";
import { cookieHeaderFor } from "../../src/media/cookie-header.ts";

const file = [
  "# Netscape HTTP Cookie File",
  ".fbcdn.net\tTRUE\t/\tTRUE\t1900000000\ta\t1",
  "#HttpOnly_i.redd.it\tFALSE\t/\tFALSE\t0\tb\t2",
  ".redd.it\tTRUE\t/private/\tFALSE\t0\tc\t3",
  ".fbcdn.net\tTRUE\t/\tFALSE\t1000000000\texpired\t4",
  "malformed line",
  "",
].join("\n");
const now = new Date("2026-11-24T00:00:00Z");

describe("cookieHeaderFor()", () => {
  test("sends what a browser would: domain and subdomains, path, secure, not expired", () => {
    expect(cookieHeaderFor(file, new URL("https://scontent.xx.fbcdn.net/v/a.jpg"), now)).toBe("a=1");
    expect(cookieHeaderFor(file, new URL("http://scontent.xx.fbcdn.net/v/a.jpg"), now)).toBeNull();
    expect(cookieHeaderFor(file, new URL("https://i.redd.it/a.jpg"), now)).toBe("b=2");
    expect(cookieHeaderFor(file, new URL("https://i.redd.it/private/a.jpg"), now)).toBe("b=2; c=3");
    expect(cookieHeaderFor(file, new URL("https://preview.redd.it/a.jpg"), now)).toBeNull();
    expect(cookieHeaderFor(file, new URL("https://evilfbcdn.net/a.jpg"), now)).toBeNull();
  });
});
