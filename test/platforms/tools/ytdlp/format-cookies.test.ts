import { describe, expect, test } from "vitest";
import { formatCookies, withoutCookieHeader } from "../../../../src/platforms/tools/ytdlp/format-cookies.ts";

describe("formatCookies()", () => {
  test("current yt-dlp's cookies field: each cookie scoped to the domain and path it names", () => {
    const cookies =
      'a=1; Domain=.example.com; Path=/; Secure; Expires=1795000000; b="x y"; Domain=cdn.example.com; Path=/v';
    expect(formatCookies({ url: "https://cdn.example.com/v/1.mp4", cookies, http_headers: null })).toEqual([
      "a=1; domain=.example.com; path=/",
      'b="x y"; domain=cdn.example.com; path=/v',
    ]);
  });

  test("a URL with a port: ffmpeg compares the domain with host:port, so the port is added for that host only; http paths start with the origin", () => {
    expect(
      formatCookies({
        url: "http://127.0.0.1:8123/m.mp4",
        cookies: "s=1; Domain=127.0.0.1; Path=/; t=2; Domain=other.example",
        http_headers: null,
      }),
    ).toEqual([
      "s=1; domain=127.0.0.1:8123; path=http://127.0.0.1:8123/",
      "t=2; domain=other.example; path=http://other.example/",
    ]);
  });

  test("yt-dlp 2023's Cookie header: scoped to the format URL's host", () => {
    expect(
      formatCookies({
        url: "https://media.example.org/a.mp4",
        cookies: null,
        http_headers: { Cookie: "k=v; m=n", Referer: "https://example.org/" },
      }),
    ).toEqual([
      "k=v; domain=media.example.org; path=/",
      "m=n; domain=media.example.org; path=/",
    ]);
    expect(withoutCookieHeader({ Cookie: "k=v", Referer: "r" })).toEqual({ Referer: "r" });
  });

  test("no cookies, no lines; line breaks cannot smuggle a header", () => {
    expect(formatCookies({ url: "https://example.org/a.mp4", cookies: null, http_headers: {} })).toEqual([]);
    expect(
      formatCookies({
        url: "https://example.org/a.mp4",
        cookies: "a=1\r\nX-Evil: 1; Domain=example.org",
        http_headers: null,
      }),
    ).toEqual(["a=1X-Evil: 1; domain=example.org; path=/"]);
  });
});
