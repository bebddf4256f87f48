import { describe, expect, test } from "vitest";
import { clipRangeOf, parseClipTime } from "../../src/http/clip-range.ts";

describe("parseClipTime()", () => {
  test("reads seconds with a fraction and [hh:]mm:ss[.fff]", () => {
    expect(parseClipTime("75")).toBe(75);
    expect(parseClipTime("75.5")).toBe(75.5);
    expect(parseClipTime("1:15.5")).toBe(75.5);
    expect(parseClipTime("01:01:15.500")).toBe(3675.5);
    expect(parseClipTime("0:00")).toBe(0);
  });

  test("refuses anything else", () => {
    for (const text of ["", "-1", "1e3", "1:2:3:4", "1:75", "1.2345", "ten", "0x10", "1:1"]) {
      expect(parseClipTime(text), text).toBeNull();
    }
  });
});

describe("clipRangeOf()", () => {
  test("is null without bounds, from 0 without a start, to the end without an end", () => {
    expect(clipRangeOf(undefined, undefined)).toBeNull();
    expect(clipRangeOf(undefined, 10)).toEqual({ startSec: 0, endSec: 10, exact: false });
    expect(clipRangeOf(5, undefined, true)).toEqual({ startSec: 5, endSec: null, exact: true });
  });

  test("an end not after the start is 400 naming `end`", () => {
    expect(() => clipRangeOf(10, 10)).toThrow(/`end` \(10 s\) must be after `start`/);
  });
});
