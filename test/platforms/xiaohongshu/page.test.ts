// What the service reads of a Xiaohongshu link and page, offline: which links name a note (and what
// of their query goes on), and the page's state, a JavaScript literal read as data.
import { describe, expect, test } from "vitest";
import { initialStateOf } from "../../../src/platforms/xiaohongshu/state.ts";
import { isShortLink, noteOf } from "../../../src/platforms/xiaohongshu/url.ts";

describe("noteOf() and isShortLink()", () => {
  test("a note link gives its id and its access token and source, nothing else of its query", () => {
    const ref = noteOf(new URL("https://www.xiaohongshu.com/discovery/item/674051740000000007027a15?app_platform=android&xsec_source=app_share&type=normal&xsec_token=CBge%3D"));
    expect(ref?.id).toBe("674051740000000007027a15");
    expect(ref?.access.toString()).toBe("xsec_token=CBge%3D&xsec_source=app_share");
    expect(noteOf(new URL("https://xiaohongshu.com/explore/6411cf99000000001300b6d9/"))?.access.toString()).toBe("");
  });

  test("other links name no note; only xhslink.com's short paths are short links", () => {
    for (const link of ["https://www.xiaohongshu.com/user/profile/5c31698d0000000007018a31", "https://www.xiaohongshu.com/explore/not-hex-at-all", "https://www.xiaohongshu.com.evil.example/explore/6411cf99000000001300b6d9"]) {
      expect(noteOf(new URL(link))).toBeNull();
    }
    expect(isShortLink(new URL("https://xhslink.com/a/AbCd12"))).toBe(true);
    expect(isShortLink(new URL("http://xhslink.com/o/7RVbLuOxlIq"))).toBe(true);
    expect(isShortLink(new URL("https://xhslink.com/"))).toBe(false);
    expect(isShortLink(new URL("https://xhslink.com.evil.example/a/AbCd12"))).toBe(false);
  });
});

describe("initialStateOf()", () => {
  const page = (literal: string) => `<html><script>window.__INITIAL_STATE__ = ${literal};window.other={"a":undefined}</script></html>`;

  test("reads the literal: undefined and a constructed Map become null, strings and numbers stay as written", () => {
    const state = initialStateOf(page('{"a":undefined,"b":[1,-2.5e3,undefined],"m":new Map([["k",{"v":undefined}]]),"s":"undefined } new Map( \\"q\\"","u":"http:\\u002F\\u002Fx","t":true,"n":null}'));
    expect(state).toEqual({ a: null, b: [1, -2500, null], m: null, s: 'undefined } new Map( "q"', u: "http://x", t: true, n: null });
  });

  test("a page without the state, or with one that does not read, gives null", () => {
    expect(initialStateOf("<html>no state</html>")).toBeNull();
    expect(initialStateOf(page("[1,2]"))).toBeNull();
    expect(initialStateOf(page('{"a":1,'))).toBeNull();
    expect(initialStateOf(page('{"a":alert(1)}'))).toBeNull();
  });
});
