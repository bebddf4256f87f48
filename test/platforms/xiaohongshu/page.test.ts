// What the service reads of a Xiaohongshu link and page, offline: which links name a note (and what
// of their query goes on), and the page's state, a JavaScript literal read as data.
import { describe, expect, test } from "vitest";
import { noteToPost } from "../../../src/platforms/xiaohongshu/note.ts";
import { initialStateOf } from "../../../src/platforms/xiaohongshu/state.ts";
import { isShortLink, noteOf, shortHostOf } from "../../../src/platforms/xiaohongshu/url.ts";

describe("noteOf() and isShortLink()", () => {
  test("a note link gives its id and its access token and source, nothing else of its query", () => {
    const ref = noteOf(
      new URL(
        "https://www.xiaohongshu.com/discovery/item/674051740000000007027a15?app_platform=android&xsec_source=app_share&type=normal&xsec_token=CBge%3D",
      ),
    );
    expect(ref?.id).toBe("674051740000000007027a15");
    expect(ref?.access.toString()).toBe("xsec_token=CBge%3D&xsec_source=app_share");
    expect(noteOf(new URL("https://xiaohongshu.com/explore/6411cf99000000001300b6d9/"))?.access.toString()).toBe("");
  });

  test("other links name no note; only xhslink.com's and xhslink.cn's short paths are short links", () => {
    for (
      const link of [
        "https://www.xiaohongshu.com/user/profile/5c31698d0000000007018a31",
        "https://www.xiaohongshu.com/explore/not-hex-at-all",
        "https://www.xiaohongshu.com.evil.example/explore/6411cf99000000001300b6d9",
      ]
    ) {
      expect(noteOf(new URL(link))).toBeNull();
    }
    expect(isShortLink(new URL("https://xhslink.com/a/AbCd12"))).toBe(true);
    expect(isShortLink(new URL("http://xhslink.com/o/7RVbLuOxlIq"))).toBe(true);
    // The first shape (no letter before the code), `/m/` (June 2025), and xhslink.cn (July 2026).
    expect(isShortLink(new URL("http://xhslink.com/ErpbmK"))).toBe(true);
    expect(isShortLink(new URL("http://xhslink.com/m/1gJ5tOG6M1b"))).toBe(true);
    expect(isShortLink(new URL("http://xhslink.cn/m/1gJ5tOG6M1b"))).toBe(true);
    expect(shortHostOf(new URL("http://www.XHSLINK.cn/m/1gJ5tOG6M1b"))).toBe("xhslink.cn");
    expect(isShortLink(new URL("https://xhslink.com/"))).toBe(false);
    expect(isShortLink(new URL("https://xhslink.com/a/b/AbCd12"))).toBe(false);
    expect(isShortLink(new URL("https://xhslink.com.evil.example/a/AbCd12"))).toBe(false);
    expect(isShortLink(new URL("https://notxhslink.cn/a/AbCd12"))).toBe(false);
  });
});

describe("initialStateOf()", () => {
  const page = (literal: string) =>
    `<html><script>window.__INITIAL_STATE__ = ${literal};window.other={"a":undefined}</script></html>`;

  test("reads the literal: undefined and a constructed Map become null, strings and numbers stay as written", () => {
    const state = initialStateOf(
      page(
        '{"a":undefined,"b":[1,-2.5e3,undefined],"m":new Map([["k",{"v":undefined}]]),"s":"undefined } new Map( \\"q\\"","u":"http:\\u002F\\u002Fx","t":true,"n":null}',
      ),
    );
    expect(state).toEqual({
      a: null,
      b: [1, -2500, null],
      m: null,
      s: 'undefined } new Map( "q"',
      u: "http://x",
      t: true,
      n: null,
    });
  });

  test("a page without the state, or with one that does not read, gives null", () => {
    expect(initialStateOf("<html>no state</html>")).toBeNull();
    expect(initialStateOf(page("[1,2]"))).toBeNull();
    expect(initialStateOf(page('{"a":1,'))).toBeNull();
    expect(initialStateOf(page('{"a":alert(1)}'))).toBeNull();
  });
});

describe("noteToPost()", () => {
  const ref = { id: "674051740000000007027a15", access: new URLSearchParams() };
  const stateOf = (note: object) => ({ note: { noteDetailMap: { [ref.id]: { note } } } });
  const anywhere = () => true;

  test("a video's length comes from its stream, else from video.capa; sizes are whole", () => {
    const stream = { masterUrl: "http://sns-video-bd.xhscdn.com/a.mp4", width: 607.5, height: 1080 };
    const note = (duration: number | null) => ({
      type: "video",
      imageList: [],
      video: { capa: { duration: 7 }, media: { stream: { h264: [{ ...stream, duration }] } } },
    });
    expect(noteToPost(stateOf(note(12_345)), ref, anywhere).record.durationSec).toBe(12);
    const { record } = noteToPost(stateOf(note(null)), ref, anywhere);
    expect(record.durationSec).toBe(7);
    expect(record.media[0]).toMatchObject({ width: 608, height: 1080, url: "https://sns-video-bd.xhscdn.com/a.mp4" });
  });

  test("a photo's link is urlDefault, else the WB_DFT entry of its infoList; a note without a photo on the CDN is not shown", () => {
    const image = {
      infoList: [{ imageScene: "WB_PRV", url: "http://sns-webpic-qc.xhscdn.com/p" }, {
        imageScene: "WB_DFT",
        url: "http://sns-webpic-qc.xhscdn.com/d",
      }],
    };
    expect(noteToPost(stateOf({ type: "normal", imageList: [image] }), ref, anywhere).record.imageUrls).toEqual([
      "https://sns-webpic-qc.xhscdn.com/d",
    ]);
    expect(() => noteToPost(stateOf({ type: "normal", imageList: [image] }), ref, () => false)).toThrow(
      /did not show note/,
    );
    expect(() => noteToPost({ note: { noteDetailMap: {} } }, ref, anywhere)).toThrow(/did not show note/);
  });
});
