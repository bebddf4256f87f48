import { describe, expect, it } from "vitest";
import { errorText } from "../src/log.ts";

describe("errorText()", () => {
  it("says what any thrown value says, never [object Object]", () => {
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText(new Error("boom"), { stack: true })).toMatch(/^Error: boom\n\s+at /);
    // PGlite and Emscripten's file system throw plain objects, for example when the disk is full.
    expect(errorText({ name: "ErrnoError", errno: 28, code: "ENOSPC" })).toBe('{"name":"ErrnoError","errno":28,"code":"ENOSPC"}');
    expect(errorText({ message: "could not extend file", severity: "ERROR" })).toBe("could not extend file");
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(errorText(cycle)).toBe("Object {self}");
    expect(errorText("plain text")).toBe("plain text");
    expect(errorText(undefined)).toBe("undefined");
  });
});
