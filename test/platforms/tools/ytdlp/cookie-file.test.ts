// What yt-dlp refuses to load as a cookie file (measured with yt-dlp 2026.10.26: each of these
// stops a run), told apart from a file it loads.
import { describe, expect, it } from "vitest";
import { cookieFileFault } from "../../../../src/platforms/tools/ytdlp/cookie-file.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("cookieFileFault()", () => {
  it("accepts a Netscape cookie file, as browser extensions and curl write it", () => {
    expect(cookieFileFault(bytes("# Netscape HTTP Cookie File\n.x.com\tTRUE\t/\tTRUE\t0\tct0\tabc\n"))).toBeNull();
    expect(cookieFileFault(bytes("# HTTP Cookie File\r\n#HttpOnly_.x.com\tTRUE\t/\tTRUE\t0\tauth_token\tabc\r\n")))
      .toBeNull();
  });

  it("names what makes a file no cookie file", () => {
    expect(cookieFileFault(bytes("# Netscape HTTP Cookie File\n.x.com\tTRUE\t/\tTRUE\t0\tct0\tab\u0000c\n"))).toBe(
      "it holds NUL bytes",
    );
    expect(cookieFileFault(new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0x0a]))).toBe("it is not UTF-8 text");
    expect(cookieFileFault(bytes(".x.com\tTRUE\t/\tTRUE\t0\tct0\tabc\n"))).toBe(
      'its first line is not "# Netscape HTTP Cookie File"',
    );
    expect(cookieFileFault(bytes('[{"domain": ".x.com", "name": "ct0"}]'))).toBe(
      'its first line is not "# Netscape HTTP Cookie File"',
    );
  });
});
