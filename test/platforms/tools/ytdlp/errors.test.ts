import { describe, expect, test } from "vitest";
import { classifyYtdlpFailure } from "../../../../src/platforms/tools/ytdlp/errors.ts";

describe("classifyYtdlpFailure()", () => {
  test.each([
    ["ERROR: Unsupported URL: http://127.0.0.1:8765/none.html", 400, "unsupported_url"],
    ["ERROR: [generic] 'abc' is not a valid URL. Set --default-search \"ytsearch\"", 400, "unsupported_url"],
    [
      "ERROR: [youtube] hwMkbaS_M_c: Requested format is not available. Use --list-formats",
      400,
      "format_not_available",
    ],
    [
      "ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found (caused by <HTTPError 404>)",
      404,
      "not_found",
    ],
    ["ERROR: [generic] Unable to download webpage: HTTP Error 410: Gone", 404, "not_found"],
    ["ERROR: [youtube] abc: Video unavailable", 404, "not_found"],
    [
      "ERROR: [youtube:truncated_id] abc: Incomplete YouTube ID abc. URL https://www.youtube.com/watch?v=abc looks truncated.",
      400,
      "unsupported_url",
    ],
    ["ERROR: [generic] Unable to download webpage: HTTP Error 403: Forbidden", 502, "upstream_failed"],
    ["ERROR: [generic] Unable to download webpage: HTTP Error 500: Internal Server Error", 502, "upstream_failed"],
    [
      "ERROR: [generic] Unable to download webpage: <urlopen error [Errno 111] Connection refused>",
      502,
      "upstream_failed",
    ],
    [
      "ERROR: [generic] Unable to download webpage: <urlopen error [Errno -2] Name or service not known>",
      502,
      "upstream_failed",
    ],
    ["ERROR: [generic] Unable to download webpage: The read operation timed out", 502, "upstream_failed"],
    ["Traceback (most recent call last):\nKeyError: 'x'", 502, "upstream_failed"],
    [
      "ERROR: [youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp",
      502,
      "upstream_blocked",
    ],
    [
      "ERROR: [youtube] abc: Sign in to confirm your age. This video may be inappropriate for some users. Use --cookies-from-browser or --cookies for the authentication.",
      502,
      "upstream_blocked",
    ],
    [
      "ERROR: [instagram] C1a2b3: Requested content is not available, rate-limit reached or login required. Use --cookies, --cookies-from-browser, --username and --password, --netrc-cmd, or --netrc (instagram) to provide account credentials",
      502,
      "upstream_blocked",
    ],
    ["ERROR: [tiktok] 123: This post requires login. Use --cookies", 502, "upstream_blocked"],
    [
      "ERROR: [generic] rate-limited: Unable to download webpage: HTTP Error 429: Too Many Requests (caused by <HTTPError 429: Too Many Requests>)",
      502,
      "upstream_blocked",
    ],
    [
      "ERROR: [youtube] abc: Private video. Sign in if you've been granted access to this video. Use --cookies-from-browser or --cookies for the authentication.",
      404,
      "not_found",
    ],
    ["", 502, "upstream_failed"],
    // Links that read like a refusal, answered 404 (yt-dlp 2026.10.26's words): the link's text is no platform's.
    [
      "ERROR: [generic] rate-limit: Unable to download webpage: HTTP Error 404: File not found (caused by <HTTPError 404: File not found>)",
      404,
      "not_found",
    ],
    [
      "ERROR: [generic] age-restricted: Unable to download webpage: HTTP Error 404: File not found (caused by <HTTPError 404: File not found>)",
      404,
      "not_found",
    ],
    [
      "ERROR: [generic] x?q=Too Many Requests: Unable to download webpage: HTTP Error 404: File not found (caused by <HTTPError 404: File not found>)",
      404,
      "not_found",
    ],
    [
      "ERROR: [generic] x: HTTP Error 429: Too Many Requests: Unable to download webpage: HTTP Error 404: Too Many Requests (caused by <HTTPError 404: Too Many Requests>)",
      404,
      "not_found",
    ],
    ["ERROR: Unsupported URL: http://127.0.0.1:8765/?q=Sign%20in%20to%20confirm%20your%20age", 400, "unsupported_url"],
    ["ERROR: [instagram] rate-limit: Unable to download JSON metadata: HTTP Error 404: Not Found", 404, "not_found"],
    // A platform's own words after the link's id still count.
    [
      "ERROR: [instagram] rate-limit: Requested content is not available, rate-limit reached or login required. Use --cookies",
      502,
      "upstream_blocked",
    ],
  ])("%s -> %i %s", (stderr, status, code) => {
    expect(classifyYtdlpFailure(1, stderr)).toMatchObject({ status, code });
  });

  test.each([
    "WARNING: [generic] Falling back\nERROR: Unsupported URL: http://10.0.0.7:5432/b\n",
    "ERROR: [html5] abc: yt_dlp.utils.ExtractorError: No video formats found",
    "ERROR: Invalid format specification b[foo\n                        ^",
    "ERROR: [youtube] abc: Video unavailable. This video is private",
  ])("a 400 or 404 says it in our words and keeps yt-dlp's in the cause: %s", (stderr) => {
    const error = classifyYtdlpFailure(1, stderr);
    expect(error.status).toBeLessThan(500);
    expect(error.message).not.toMatch(/ERROR|yt_dlp|\[|\^|10\.0\.0\.7|Video unavailable|Unsupported URL|specification/);
    expect(String(error.cause)).toContain(stderr.split("ERROR: ")[1]!.split("\n")[0]!.replace(/^\[[^\]]+\]\s*/, ""));
  });

  test("a 502 keeps yt-dlp's words out of the detail and in the cause", () => {
    const error = classifyYtdlpFailure(
      1,
      "ERROR: Unable to download webpage: <urlopen error [Errno 111] Connection refused>\n",
    );
    expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
    expect(error.message).not.toContain("refused");
    expect(String(error.cause)).toContain("Connection refused");
  });

  test("a blocked run says who can act in the answer, and names the remedy in the cause the log shows", () => {
    const error = classifyYtdlpFailure(1, "ERROR: [youtube] x: Sign in to confirm you’re not a bot. Use --cookies\n");
    expect(error.message).toMatch(/platform refused this server with a bot check.*operator of this service can act/);
    expect(String(error.cause)).toMatch(
      /Sign in to confirm you.re not a bot.*COOKIES_FILE.*OUTBOUND_PROXY.*--update-tools/,
    );
  });

  test("a failed extraction says the post could not be read: yt-dlp fetched no media", () => {
    const error = classifyYtdlpFailure(
      1,
      "ERROR: [generic] Unable to download webpage: HTTP Error 500: Internal Server Error\n",
    );
    expect(error.message).toBe("The post could not be read from the source site (yt-dlp exit 1); try again later.");
  });

  test("the cause keeps yt-dlp's whole message, without its request to report a bug", () => {
    // yt-dlp 2026.10.26 offline, through the egress gate (the log line, in full).
    const message =
      "[youtube] dQw4w9WgXcQ: Unable to download API page: <urlopen error Tunnel connection failed: 502 Bad Gateway> (caused by ProxyError('<urlopen error Tunnel connection failed: 502 Bad Gateway>'))";
    const report =
      "; please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. Confirm you are on the latest version using  yt-dlp -U";
    const long = `[generic] abc: ${"An extractor said something long. ".repeat(12).trim()}`;
    expect(String(classifyYtdlpFailure(1, `WARNING: x\nERROR: ${message}${report}\n`).cause)).toBe(
      `Error: ${message.replace("[youtube] ", "")}`,
    );
    // Where the message ends with a full stop, yt-dlp capitalises the request.
    expect(
      String(
        classifyYtdlpFailure(
          1,
          `ERROR: ${long}. Please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. Confirm you are on the latest version using  yt-dlp -U\n`,
        ).cause,
      ),
    ).toBe(
      `Error: ${long.replace("[generic] ", "")}.`,
    );
  });

  test("a kill by signal says so", () => {
    expect(classifyYtdlpFailure(null, "").message).toContain("killed");
  });
});
