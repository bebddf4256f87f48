import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { assertDirectUrl, isDirectUrl } from "../../src/http/direct-hosts.ts";

describe("isDirectUrl()", () => {
  it.each([
    "https://video.twimg.com/ext_tw_video/1/pu/vid/avc1/720x1280/a.mp4?tag=12",
    "https://pbs.twimg.com/media/GMxYz1aW8AA?format=jpg&name=orig",
    "https://ton.twimg.com/x/y.mp4",
    "https://VIDEO.TWIMG.COM:443/a.mp4",
  ])("accepts %s", (url) => {
    expect(isDirectUrl(new URL(url))).toBe(true);
  });

  it.each([
    ["plain http", "http://video.twimg.com/a.mp4"],
    ["another host", "https://example.com/a.mp4"],
    ["a look-alike subdomain", "https://video.twimg.com.evil.example/a.mp4"],
    ["a subdomain of an allowed host", "https://x.pbs.twimg.com/a.jpg"],
    ["the parent domain", "https://twimg.com/a.jpg"],
    ["a trailing-dot host", "https://video.twimg.com./a.mp4"],
    ["a user name", "https://user@video.twimg.com/a.mp4"],
    ["a user and password", "https://u:p@pbs.twimg.com/a.jpg"],
    ["a non-default port", "https://video.twimg.com:8443/a.mp4"],
    ["an IPv4 literal", "https://127.0.0.1/a.mp4"],
    ["an IPv6 literal", "https://[::1]/a.mp4"],
    ["another scheme", "ftp://video.twimg.com/a.mp4"],
  ])("refuses %s", (_why, url) => {
    expect(isDirectUrl(new URL(url))).toBe(false);
  });
});

describe("assertDirectUrl()", () => {
  it("throws 403 host_not_allowed naming the allowed hosts", () => {
    let thrown: unknown;
    try {
      assertDirectUrl(new URL("https://example.com/a.mp4"));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 403, code: "host_not_allowed" });
    expect((thrown as ApiError).message).toContain("video.twimg.com, pbs.twimg.com, ton.twimg.com");
  });

  it("returns quietly for an allowed URL", () => {
    expect(() => assertDirectUrl(new URL("https://pbs.twimg.com/media/X?format=png"))).not.toThrow();
  });
});
