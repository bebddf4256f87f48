// The subtitle renditions of a master playlist and the segments of a media playlist (media/hls-subtitles.ts),
// and a track's WebVTT segments joined on one clock (media/vtt-segments.ts).
import { describe, expect, test } from "vitest";
import { mediaSegments, subtitleRenditions } from "../../src/media/hls-subtitles.ts";
import { joinVttSegments } from "../../src/media/vtt-segments.ts";

const base = new URL("https://video.example/v/1/pl/master.m3u8?tag=14");

describe("subtitleRenditions", () => {
  test("each SUBTITLES rendition with a URI, its attributes in any order, its link resolved", () => {
    const master = [
      "#EXTM3U",
      '#EXT-X-MEDIA:NAME="Audio",TYPE=AUDIO,GROUP-ID="audio-32000",URI="/v/1/pl/mp4a/32000/a.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="en-US (auto-generated)",URI="/v/1/pl/s0/en.m3u8",LANGUAGE="en-US",CHARACTERISTICS="a.one,b.two"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",URI="s1/fr.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="In the stream",LANGUAGE="de"',
      '#EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES="subs"',
      "/v/1/pl/480x270/v.m3u8",
    ].join("\r\n");
    expect(subtitleRenditions(master, base)).toEqual([
      {
        lang: "en-US",
        name: "en-US (auto-generated)",
        characteristics: ["a.one", "b.two"],
        url: new URL("https://video.example/v/1/pl/s0/en.m3u8"),
      },
      { lang: "und", name: "Français", characteristics: [], url: new URL("https://video.example/v/1/pl/s1/fr.m3u8") },
    ]);
  });

  test("a link that is not http(s) is refused", () => {
    expect(() => subtitleRenditions('#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,URI="file:///etc/passwd"', base)).toThrow(
      /not an http\(s\) link/,
    );
  });
});

describe("mediaSegments", () => {
  test("every link line, resolved; tags and blank lines skipped", () => {
    const playlist =
      "#EXTM3U\n#EXT-X-TARGETDURATION:60\n#EXTINF:60.000,\n/subtitles/1/0/a.vtt\n\n#EXTINF:3,\nb.vtt\n#EXT-X-ENDLIST\n";
    expect(mediaSegments(playlist, base).map(String)).toEqual([
      "https://video.example/subtitles/1/0/a.vtt",
      "https://video.example/v/1/pl/b.vtt",
    ]);
  });
});

const segment = (map: string | null, cues: string) => `WEBVTT${map ? `\nX-TIMESTAMP-MAP=${map}` : ""}\n\n${cues}`;

describe("joinVttSegments", () => {
  test("a later segment's cues move by its map against the first's: MPEGTS at 90 kHz, less LOCAL", () => {
    const cues = joinVttSegments([
      segment("MPEGTS:900000,LOCAL:00:00:00.000", "00:00:01.000 --> 00:00:02.000\none\n"),
      segment("MPEGTS:1800000,LOCAL:00:00.000", "00:00:01.000 --> 00:00:02.000\ntwo\n"),
      segment("LOCAL:00:00:20.000,MPEGTS:2700000", "00:00:21.000 --> 00:00:22.000\nthree\n"),
    ]);
    expect(cues).toEqual([
      { start: 1, end: 2, text: "one" },
      { start: 11, end: 12, text: "two" },
      { start: 21, end: 22, text: "three" },
    ]);
  });

  test("the 33-bit MPEGTS clock wrapping between segments still moves on", () => {
    const last = 2 ** 33 - 90_000;
    const cues = joinVttSegments([
      segment(`MPEGTS:${last},LOCAL:00:00:00.000`, "00:00:00.500 --> 00:00:00.900\nbefore\n"),
      segment("MPEGTS:90000,LOCAL:00:00:00.000", "00:00:00.000 --> 00:00:01.000\nafter\n"),
    ]);
    expect(cues).toEqual([{ start: 0.5, end: 0.9, text: "before" }, { start: 2, end: 3, text: "after" }]);
  });

  test("segments without a map are read as written; a cue repeated or continued across them is one", () => {
    const cues = joinVttSegments([
      segment(null, "00:00:01.000 --> 00:00:02.000\nkept once\n\n00:00:09.000 --> 00:00:10.000\ngoes on\n"),
      segment(null, "00:00:01.000 --> 00:00:02.000\nkept once\n\n00:00:10.000 --> 00:00:11.500\ngoes on\n"),
      segment(null, "00:00:30.000 --> 00:00:31.000\nkept once\n"),
    ]);
    expect(cues).toEqual([
      { start: 1, end: 2, text: "kept once" },
      { start: 9, end: 11.5, text: "goes on" },
      { start: 30, end: 31, text: "kept once" },
    ]);
  });
});
