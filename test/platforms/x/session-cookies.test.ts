import { describe, expect, it } from "vitest";
import { sessionHeaders, xSessionFromCookieFile } from "../../../src/platforms/x/session-cookies.ts";

const now = new Date("2026-11-23T00:00:00Z");
const line = (domain: string, name: string, value: string, expires = "1900000000") =>
  [domain, "TRUE", "/", "TRUE", expires, name, value].join("\t");

describe("xSessionFromCookieFile()", () => {
  it("takes auth_token (marked HttpOnly by browsers) and ct0 of x.com from a Netscape file", () => {
    const text = [
      "# Netscape HTTP Cookie File",
      `#HttpOnly_${line(".x.com", "auth_token", "a1")}`,
      line(".x.com", "ct0", "c1"),
      line(".youtube.com", "SID", "y"),
      "",
    ].join("\n");
    expect(xSessionFromCookieFile(text, now)).toEqual({ authToken: "a1", ct0: "c1" });
  });

  it("prefers x.com over twitter.com, skips expired cookies, and needs both", () => {
    const both = [
      line(".twitter.com", "auth_token", "old"),
      line(".x.com", "auth_token", "new"),
      line(".x.com", "ct0", "c"),
    ].join("\r\n");
    expect(xSessionFromCookieFile(both, now)).toEqual({ authToken: "new", ct0: "c" });
    expect(
      xSessionFromCookieFile(
        [line(".x.com", "auth_token", "a", "1700000000"), line(".x.com", "ct0", "c")].join("\n"),
        now,
      ),
    ).toBeNull();
    expect(xSessionFromCookieFile(line(".x.com", "auth_token", "a"), now)).toBeNull();
    expect(
      xSessionFromCookieFile([line(".evilx.com", "auth_token", "a"), line(".evilx.com", "ct0", "c")].join("\n"), now),
    ).toBeNull();
  });
});

describe("sessionHeaders()", () => {
  it("sends both cookies and ct0 again as the CSRF token, as X's web client does", () => {
    expect(sessionHeaders({ authToken: "a", ct0: "c" })).toMatchObject({
      cookie: "auth_token=a; ct0=c",
      "x-csrf-token": "c",
    });
  });
});
