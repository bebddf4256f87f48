import { describe, expect, it } from "vitest";
import { causeText, createLogger, errorText, withFields } from "../src/log.ts";

describe("errorText()", () => {
  it("says what any thrown value says, never [object Object]", () => {
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText(new Error("boom"), { stack: true })).toMatch(/^Error: boom\n\s+at /);
    // PGlite and Emscripten's file system throw plain objects, for example when the disk is full.
    expect(errorText({ name: "ErrnoError", errno: 28, code: "ENOSPC" })).toBe(
      '{"name":"ErrnoError","errno":28,"code":"ENOSPC"}',
    );
    expect(errorText({ message: "could not extend file", severity: "ERROR" })).toBe("could not extend file");
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(errorText(cycle)).toBe("Object {self}");
    expect(errorText("plain text")).toBe("plain text");
    expect(errorText(undefined)).toBe("undefined");
  });
});

describe("causeText()", () => {
  it("says what lies under a bare message, led by the kind of connection failure", () => {
    const fetchFailed = new TypeError("fetch failed", {
      cause: Object.assign(new Error("getaddrinfo ENOTFOUND cdn.syndication.twimg.com"), { code: "ENOTFOUND" }),
    });
    expect(causeText(fetchFailed)).toBe(
      "host not found: fetch failed: getaddrinfo ENOTFOUND cdn.syndication.twimg.com",
    );
    // A cause that already names its kind is not told twice.
    expect(
      causeText(
        new Error(
          "the egress gate could not connect to a.example:443: connection refused (connect ECONNREFUSED 1.2.3.4:443)",
        ),
      ),
    ).toBe(
      "the egress gate could not connect to a.example:443: connection refused (connect ECONNREFUSED 1.2.3.4:443)",
    );
    expect(causeText(new Error("Unsupported URL: http://a.example/"))).toBe("Unsupported URL: http://a.example/");
  });

  it("keeps a long cause whole up to 2 000 characters, and cuts a longer one at the end of a word", () => {
    const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i}`).join(" ");
    expect(causeText(new Error(words(250)))).toBe(words(250));
    const cut = causeText(new Error(words(400)));
    expect(cut.length).toBeLessThanOrEqual(2_010);
    expect(cut).toMatch(/ word\d+ \[\.\.\.\]$/);
    expect(words(400).startsWith(cut.slice(0, -" [...]".length) + " ")).toBe(true);
  });
});

describe("withFields()", () => {
  it("puts the fields on every line, next to the line's own", () => {
    const lines: Record<string, unknown>[] = [];
    const log = withFields(createLogger("debug", (line) => lines.push(JSON.parse(line))), { requestId: "r-1" });
    log.warn("upstream failure", { code: "upstream_failed" });
    log.debug("body ended");
    expect(lines).toMatchObject([
      { level: "warn", msg: "upstream failure", requestId: "r-1", code: "upstream_failed" },
      { level: "debug", msg: "body ended", requestId: "r-1" },
    ]);
  });
});
