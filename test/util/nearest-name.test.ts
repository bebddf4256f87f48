import { describe, expect, test } from "vitest";
import { editDistance, nearestName } from "../../src/util/nearest-name.ts";

describe("editDistance()", () => {
  test.each([
    ["format", "format", 0],
    ["fromat", "format", 1],
    ["formt", "format", 1],
    ["formats", "format", 1],
    ["index", "url", 5],
    ["", "url", 3],
  ])("%s -> %s is %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe("nearestName()", () => {
  const known = ["url", "format", "audio", "index", "subtitles", "filename"];

  test("prefers a name the given one holds, the one it starts with first", () => {
    expect(nearestName("audioformat", known)).toBe("audio");
    expect(nearestName("videoformat", known)).toBe("format");
    expect(nearestName("myurl", known)).toBe("url");
  });

  test("else the closest within a third of the length in edits, and nothing past that", () => {
    expect(nearestName("fromat", known)).toBe("format");
    expect(nearestName("FILENAM", known)).toBe("filename");
    expect(nearestName("callback", known)).toBeNull();
    expect(nearestName("q", known)).toBeNull();
  });
});
