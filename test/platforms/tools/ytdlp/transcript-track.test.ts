// Which track a transcript reads, from recorded yt-dlp descriptions (test/fixtures/upstream/ytdlp,
// PROVENANCE.md there): a YouTube video's own English subtitles, another's automatic captions,
// a post with neither, and an X video whose English track is an HLS playlist of WebVTT segments.
import { describe, expect, test } from "vitest";
import { mainEntry } from "../../../../src/platforms/tools/ytdlp/info.ts";
import { transcriptTrack } from "../../../../src/platforms/tools/ytdlp/subtitles.ts";
import { ytdlpFixture } from "./fixtures.ts";

const entry = (name: string) => mainEntry(ytdlpFixture(name));

describe("transcriptTrack()", () => {
  test("a YouTube video with subtitles: the language's own track, as WebVTT from YouTube's timedtext", () => {
    const track = transcriptTrack(entry("youtube_hwMkbaS_M_c"), "en");
    expect(track).toMatchObject({ lang: "en", auto: false, format: "vtt" });
    const url = new URL(track.url);
    expect(url.hostname).toBe("www.youtube.com");
    expect(url.pathname).toBe("/api/timedtext");
    expect(url.searchParams.get("fmt")).toBe("vtt");
  });

  test("without `lang`, the first language the record lists", () => {
    expect(transcriptTrack(entry("youtube_hwMkbaS_M_c"), null)).toMatchObject({ lang: "cs", auto: false });
  });

  test("a YouTube video with automatic captions alone: those, marked automatic", () => {
    expect(transcriptTrack(entry("youtube_JjQDik3yNhA_2023-06-29"), "en")).toMatchObject({
      lang: "en",
      auto: true,
      format: "vtt",
    });
  });

  test("a language the video lacks is 400 naming those it has; a post with no track is 404 no_transcript", () => {
    expect(() => transcriptTrack(entry("youtube_hwMkbaS_M_c"), "xx")).toThrow(/no subtitles in "xx"; it has: cs, da/);
    expect(() => transcriptTrack(entry("vimeo_443437002"), null)).toThrow(
      expect.objectContaining({ code: "no_transcript", status: 404 }),
    );
  });

  test("an X video's track, an HLS playlist of WebVTT segments rather than a file of cues, is not read", () => {
    const entry = mainEntry(ytdlpFixture("twitter_nasa_1491475671058681863"));
    expect(entry.subtitles?.en?.[0]).toMatchObject({ ext: "vtt", protocol: "m3u8_native" });
    expect(() => transcriptTrack(entry, "en")).toThrow(
      expect.objectContaining({
        code: "no_transcript",
        message: expect.stringMatching(/HLS stream of WebVTT segments/),
      }),
    );
  });
});
