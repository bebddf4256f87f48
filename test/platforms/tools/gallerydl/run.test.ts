// What the service tells gallery-dl, and what it makes of gallery-dl's failures (their texts as
// gallery-dl 1.32.19 prints them: its exceptions in -j output, its log lines on stderr).
import { describe, expect, test } from "vitest";
import { classifyGalleryFailure, galleryArgs } from "../../../../src/platforms/tools/gallerydl/run.ts";
import { galleryDlAgeDays } from "../../../../src/processes/tools.ts";

describe("galleryArgs()", () => {
  test("JSON output, no config files, no retries or pauses, the gate as proxy, the cookie copy, the authority file, the URL after --", () => {
    const args = galleryArgs("-https://x", {
      socketTimeoutSec: 20,
      proxy: "http://s:k@127.0.0.1:9",
      cookiesFile: "/tmp/c/cookies.txt",
      caFile: "/etc/ca.pem",
      items: "1-20",
    });
    expect(args.slice(0, 4)).toEqual(["-j", "--config-ignore", "--http-timeout", "20"]);
    expect(args).toContain("retries=0");
    expect(args.join(" ")).toContain(
      "--proxy http://s:k@127.0.0.1:9 --cookies /tmp/c/cookies.txt -o verify=/etc/ca.pem",
    );
    expect(args.slice(-2)).toEqual(["--", "-https://x"]);
    expect(galleryArgs("https://x", { socketTimeoutSec: 5, items: "1-20" }).join(" ")).not.toMatch(
      /--proxy|--cookies|verify/,
    );
  });

  // Issue 43, item 6: gallery-dl stops reading past the range (measured: a page of 200 000 pictures
  // described in 5.8 s and 152 MB as 20, against 33 s, 217 MB and 200 000 messages without).
  test("files and posts past the range the caller gives are not described", () => {
    const args = galleryArgs("https://x", { socketTimeoutSec: 5, items: "1-7" }).join(" ");
    expect(args).toContain("--range 1-7 --post-range 1-7");
  });

  test("a listing describes the posts in the range and none of their files", () => {
    const args = galleryArgs("https://x", { socketTimeoutSec: 5, items: "1-31", files: false }).join(" ");
    expect(args).toContain("--filter False --post-range 1-31");
    expect(args).not.toContain("--range");
  });
});

describe("classifyGalleryFailure()", () => {
  const cases: [string, number, string][] = [
    [
      "AbortExtraction: HTTP redirect to login page (https://www.instagram.com/accounts/login/)",
      502,
      "upstream_blocked",
    ],
    ["[tiktok][error] https://www.tiktok.com/@a/video/1: Login required to access this post", 502, "upstream_blocked"],
    [
      "HttpError: '429 Too Many Requests' for 'https://www.instagram.com/api/v1/media/1/info/'",
      502,
      "upstream_blocked",
    ],
    ["ChallengeError: Cloudflare challenge", 502, "upstream_blocked"],
    // A link's text is no refusal: quoted, in a URL, or a 404's reason phrase.
    ["[instagram][error] NotFoundError: Requested post 'rate-limit' could not be found", 404, "not_found"],
    ["HttpError: '404 Too Many Requests' for 'https://www.instagram.com/api/v1/media/1/info/'", 404, "not_found"],
    [
      "[reddit][error] HttpError: '404 Not Found' for 'https://www.reddit.com/r/age-restricted/comments/a/too_many_requests/.json'",
      404,
      "not_found",
    ],
    ["HttpError: '404 Not Found' for 'https://www.instagram.com/api/v1/media/1/info/'", 404, "not_found"],
    ["NotFoundError: Requested submission could not be found", 404, "not_found"],
    ["[tiktok][error] https://www.tiktok.com/@a/video/1: Requested post not available", 404, "not_found"],
    ["[gallery-dl][error] Unsupported URL 'https://www.instagram.com/explore/'", 400, "unsupported_url"],
    ["ValueError: not enough values to unpack (expected 2, got 0)", 502, "upstream_failed"],
    ["HttpError: '500 Internal Server Error' for 'https://www.reddit.com/comments/a/.json'", 502, "upstream_failed"],
  ];
  test.each(cases)("%s -> %i %s", (log, status, code) => {
    expect(classifyGalleryFailure(0, log)).toMatchObject({ status, code });
  });

  test("the answer is in our words; gallery-dl's reason goes to the cause", () => {
    const error = classifyGalleryFailure(
      1,
      "[instagram][error] HttpError: '500 Internal Server Error' for 'https://10.0.0.5/x'",
    );
    expect(error.message).not.toContain("10.0.0.5");
    expect((error.cause as Error).message).toContain("500 Internal Server Error");
  });
});

describe("galleryDlAgeDays()", () => {
  test("is at least the time since the next minor release came out; unknown past the table", () => {
    const now = new Date("2026-11-24T00:00:00Z");
    // 1.25.3 (Debian bookworm) is older than 1.26.0 of 2023-10-03.
    expect(galleryDlAgeDays("1.25.3", now)).toBe(1148);
    expect(galleryDlAgeDays("1.31.10", now)).toBe(212);
    expect(galleryDlAgeDays("1.32.19", now)).toBeNull();
    expect(galleryDlAgeDays("dev", now)).toBeNull();
  });
});
