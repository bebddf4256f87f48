import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/http/problem.ts";
import { parseStatusId, statusLinkOf } from "../../../src/platforms/x/url.ts";

describe("parseStatusId()", () => {
  const accepted: Array<[string, string]> = [
    ["https://x.com/NASA/status/1491475671058681863", "1491475671058681863"],
    ["https://twitter.com/NASA/status/1491475671058681863", "1491475671058681863"],
    ["https://www.x.com/NASA/status/1491475671058681863", "1491475671058681863"],
    ["https://www.twitter.com/NASA/status/1491475671058681863", "1491475671058681863"],
    ["https://mobile.x.com/NASA/status/1491475671058681863", "1491475671058681863"],
    ["https://mobile.twitter.com/NASA/status/1491475671058681863", "1491475671058681863"],
    ["http://twitter.com/jack/status/20", "20"],
    ["https://twitter.com/jack/statuses/20", "20"],
    ["https://x.com/i/web/status/1491475671058681863", "1491475671058681863"],
    ["https://twitter.com/i/web/status/20", "20"],
    ["https://x.com/i/status/20", "20"],
    ["https://x.com/NASA/status/1491475671058681863/video/1", "1491475671058681863"],
    ["https://x.com/BarackObama/status/266031293945503744/photo/1", "266031293945503744"],
    ["https://twitter.com/BarackObama/status/266031293945503744/photo/4/", "266031293945503744"],
    ["https://x.com/NASA/status/1491475671058681863?s=20&t=abcDEF", "1491475671058681863"],
    ["https://x.com/NASA/status/1491475671058681863/video/1?s=46#top", "1491475671058681863"],
    ["https://x.com/NASA/status/1491475671058681863/", "1491475671058681863"],
    ["https://X.COM/NASA/status/1491475671058681863", "1491475671058681863"],
    ["  https://x.com/jack/status/20\n", "20"],
    ["x.com/jack/status/20", "20"],
    ["https://twitter.com/#!/jack/status/20", "20"],
    ["https://fxtwitter.com/jack/status/20", "20"],
    ["https://d.vxtwitter.com/jack/status/20/photo/1", "20"],
    ["fixupx.com/jack/status/20", "20"],
    // The views of a post X's web client writes after it, each of which stands for the post.
    ["https://x.com/jack/status/20/analytics", "20"],
    ["https://x.com/jack/status/20/media_tags", "20"],
    ["https://x.com/jack/status/20/likes", "20"],
    ["https://x.com/jack/status/20/retweets", "20"],
    ["https://twitter.com/jack/status/20/retweets/with_comments", "20"],
    ["https://x.com/jack/status/20/quotes?s=20&t=Xyz12aBcD3eFgHiJkLmNoP", "20"],
    ["https://x.com/jack/status/20/history/", "20"],
  ];
  it.each(accepted)("reads the id from %s", (input, id) => {
    expect(parseStatusId(input)).toBe(id);
  });

  const rejected = [
    "",
    "not a url",
    "https://example.com/jack/status/20",
    "https://x.com.evil.example/jack/status/20",
    "https://evilx.com/jack/status/20",
    "https://m.x.com.example/jack/status/20",
    "https://api.x.com/jack/status/20",
    "ftp://x.com/jack/status/20",
    "https://x.com/jack",
    "https://x.com/jack/status/",
    "https://x.com/jack/status/abc",
    "https://x.com/jack/status/20abc",
    "https://x.com/jack/status/12345678901234567890",
    "https://x.com/jack/likes/20",
    "https://x.com/jack/status/20/analytics/more",
    "https://x.com/jack/status/20/photo",
    "https://x.com/jack/status/20/photo/123",
    "https://x.com/jack/status/20/reposts",
    "https://x.com/a/b/status/20",
    "https://x.com/?status=20",
  ];
  it.each(rejected)("rejects %j with 400 invalid_url", (input) => {
    let thrown: unknown;
    try {
      parseStatusId(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_url");
    expect(error.message).toContain("https://x.com/<user>/status/<numeric id>");
  });

  it("shows at most 200 characters of a long input in the detail", () => {
    const input = `https://example.com/${"a".repeat(500)}`;
    expect(() => parseStatusId(input)).toThrow(/a{180}…"\.$/);
  });
});

describe("statusLinkOf()", () => {
  it.each([
    ["https://x.com/jack/status/20", null],
    ["https://x.com/jack/status/20/photo/2?s=20&t=abc", 2],
    ["https://x.com/jack/status/20/video/1", 1],
    ["https://x.com/jack/status/20/video/0", null],
    ["https://x.com/jack/status/20/analytics", null],
    ["https://mobile.twitter.com/jack/status/20/mediaViewer?currentTweet=20&currentTweetUser=jack", null],
    ["https://twitter.com/jack/status/20/mediaviewer", null],
    ["https://x.com/i/bookmarks?post_id=20", null],
    ["https://twitter.com/i/cards/tfw/v1/20", null],
    ["https://twitter.com/i/videos/20", null],
    ["https://twitter.com/i/videos/tweet/20", null],
  ])("%s names item %s", (link, item) => {
    expect(statusLinkOf(new URL(link))).toEqual({ id: "20", item });
  });

  it.each([
    "https://x.com/i/broadcasts/1yNGaQLWpejGj",
    "https://x.com/i/spaces/1OwxWwQOPlNxQ",
    "https://x.com/jack",
    "https://x.com/i/bookmarks",
    "https://x.com/i/bookmarks?post_id=abc",
    "https://x.com/i/bookmarks?post_id=12345678901234567890",
    "https://x.com/i/cards/tfw/v2/20",
  ])("%s names no post", (link) => {
    expect(statusLinkOf(new URL(link))).toBeNull();
  });
});
