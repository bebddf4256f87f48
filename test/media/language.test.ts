import { describe, expect, test } from "vitest";
import { mp4Language } from "../../src/media/language.ts";

describe("mp4Language()", () => {
  test.each([
    ["en", "eng"],
    ["de", "deu"], // MP4 wants the terminology code, not the bibliographic `ger`
    ["pt-BR", "por"],
    ["en-orig", "eng"],
    ["zh-Hans", "zho"],
    ["EN_us", "eng"],
    ["iw", "heb"],
    ["fil", "fil"],
    ["live_chat", "und"],
    ["xx", "und"],
    ["", "und"],
  ])("%s is %s", (tag, code) => {
    expect(mp4Language(tag)).toBe(code);
  });
});
