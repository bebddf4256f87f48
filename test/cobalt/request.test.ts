// cobalt's request body as the door reads it, its file names and its error codes, without a service:
// the values and defaults are cobalt 11's (test/fakes/cobalt-clients/PROVENANCE.md).
import { describe, expect, it } from "vitest";
import { cobaltAnswerOf } from "../../src/cobalt/errors.ts";
import { cobaltFilename, titleOf } from "../../src/cobalt/filename.ts";
import { JSON_MEDIA_TYPE, readCobaltRequest } from "../../src/cobalt/request.ts";

describe("cobalt's request", () => {
  it("takes cobalt's defaults", () => {
    expect(readCobaltRequest({ url: "https://x.com/a/status/1" })).toEqual({
      url: "https://x.com/a/status/1",
      audioBitrate: "128",
      audioFormat: "mp3",
      downloadMode: "auto",
      filenameStyle: "basic",
      youtubeVideoCodec: "h264",
      youtubeVideoContainer: "auto",
      videoQuality: "1080",
      localProcessing: "disabled",
      disableMetadata: false,
      allowH265: false,
      convertGif: true,
      tiktokFullAudio: false,
      alwaysProxy: false,
      youtubeHLS: false,
      youtubeBetterAudio: false,
    });
  });

  it("reads a boolean localProcessing and cobalt 10's names, and ignores keys it does not know", () => {
    const read = readCobaltRequest({
      url: "u",
      localProcessing: true,
      twitterGif: false,
      tiktokH265: true,
      somethingNew: 1,
    });
    expect([read?.localProcessing, read?.convertGif, read?.allowH265]).toEqual(["preferred", false, true]);
    expect(readCobaltRequest({ url: "u", localProcessing: false })?.localProcessing).toBe("disabled");
    // The newer name wins where a client sends both.
    expect(readCobaltRequest({ url: "u", twitterGif: false, convertGif: true })?.convertGif).toBe(true);
  });

  it("refuses a value outside cobalt's and what is no object", () => {
    for (
      const body of [{ url: "u", videoQuality: "9999" }, { url: "" }, { url: "u", subtitleLang: "e" }, [], "x", null]
    ) {
      expect(readCobaltRequest(body), JSON.stringify(body)).toBeNull();
    }
  });

  it("takes application/json with or without cobalt's one charset", () => {
    expect(["application/json", "application/json; charset=utf-8"].every((type) => JSON_MEDIA_TYPE.test(type))).toBe(
      true,
    );
    expect(
      ["text/json", "application/json;charset=utf-8", "application/json; charset=latin1"].some((type) =>
        JSON_MEDIA_TYPE.test(type)
      ),
    ).toBe(false);
  });
});

describe("cobalt's file names", () => {
  const file = {
    service: "twitter",
    id: "20",
    title: "just setting up",
    author: "jack",
    quality: "720p",
    extension: "mp4",
    audio: false,
  };

  it("names a file in each of cobalt's four styles", () => {
    expect(cobaltFilename(file, "classic")).toBe("twitter_20_720p.mp4");
    expect(cobaltFilename(file, "basic")).toBe("just setting up - jack (720p).mp4");
    expect(cobaltFilename(file, "pretty")).toBe("just setting up - jack (720p, twitter).mp4");
    expect(cobaltFilename(file, "nerdy")).toBe("just setting up - jack (720p, twitter, 20).mp4");
    const sound = { ...file, quality: null, extension: "mp3", audio: true };
    expect(cobaltFilename(sound, "classic")).toBe("twitter_20_audio.mp3");
    expect(cobaltFilename(sound, "basic")).toBe("just setting up - jack.mp3");
  });

  it("titles a post by its text's first line, by its id when it has none", () => {
    expect(titleOf("\n  first line  \nsecond", "1")).toBe("first line");
    expect(titleOf(null, "1")).toBe("1");
    expect(titleOf("x".repeat(200), "1")).toHaveLength(80);
  });
});

describe("cobalt's error codes", () => {
  it("says our problems in cobalt's codes, and a spent quota as 429 rate_exceeded with its wait", async () => {
    const unsupported = cobaltAnswerOf("unsupported_platform", "example", undefined);
    expect([unsupported.status, await unsupported.json()]).toEqual([
      400,
      { status: "error", error: { code: "error.api.link.invalid" } },
    ]);
    const failed = await cobaltAnswerOf("upstream_failed", "twitter", undefined).json();
    expect(failed.error).toEqual({ code: "error.api.fetch.fail", context: { service: "twitter" } });
    const quota = cobaltAnswerOf("quota_exceeded", "twitter", 3600);
    expect([quota.status, quota.headers.get("retry-after"), (await quota.json()).error]).toEqual([
      429,
      "3600",
      { code: "error.api.rate_exceeded", context: { limit: 3600 } },
    ]);
    expect((await cobaltAnswerOf("internal_error", undefined, undefined).json()).error.code).toBe("error.api.generic");
  });
});
