import { describe, expect, test } from "vitest";
import { YtdlpInfo } from "../../../../src/platforms/tools/ytdlp/info.ts";
import {
  audioSelector,
  chosenFormats,
  defaultVideoSelector,
  planRemux,
  selectorFor,
} from "../../../../src/platforms/tools/ytdlp/selection.ts";
import { ytdlpFixture } from "./fixtures.ts";

describe("selectorFor()", () => {
  test("a given format is used as is", () => {
    expect(selectorFor(" 137+ba ", "mp4")).toBe("137+ba");
    expect(selectorFor("140", "mp3")).toBe("140");
  });

  test("without one: best MP4-compatible video with sound, or audio first for mp3", () => {
    expect(selectorFor(undefined, "mp4")).toBe(defaultVideoSelector);
    expect(selectorFor("", "mp3")).toBe(audioSelector);
    expect(defaultVideoSelector.startsWith("bv*[ext=mp4][protocol!*=dash]+ba[ext=m4a][protocol!*=dash]/")).toBe(true);
    expect(defaultVideoSelector.endsWith("/bv*+ba/b")).toBe(true);
    expect(audioSelector).toBe("ba[protocol!*=dash]/b[protocol!*=dash]/ba/b");
  });
});

describe("planRemux()", () => {
  test("YouTube 248+251: VP9 and Opus from two inputs, both copied into MP4, headers kept", () => {
    const plan = planRemux(chosenFormats(ytdlpFixture("youtube_hwMkbaS_M_c")), "mp4");
    expect(plan).toMatchObject({
      output: "mp4",
      videoInput: 0,
      audioInput: 1,
      transcodeVideo: false,
      transcodeAudio: false,
      adtsAudio: false,
    });
    expect(plan.inputs).toHaveLength(2);
    expect(plan.inputs[0]!.url).toMatch(/^https:\/\/rr2---sn-h5qzen7d\.googlevideo\.com\/videoplayback\?.*itag=248/);
    expect(plan.inputs[1]!.url).toMatch(/itag=251/);
    expect(plan.inputs[0]!.headers.Referer).toBe("https://www.youtube.com/watch?v=hwMkbaS_M_c");
    expect(plan.inputs[0]!.hls).toBe(false);
    // The sizes YouTube gives, which the download's Estimated-Content-Length sums.
    expect(plan.inputs.map((input) => input.sizeBytes)).toEqual([15062619, 1973587]);
  });

  test("X hls-698 + HLS audio: two HLS inputs, ADTS audio", () => {
    const plan = planRemux(chosenFormats(ytdlpFixture("twitter_nasa_1491475671058681863")), "mp4");
    expect(plan.inputs.map((i) => [i.url, i.hls])).toEqual([
      ["https://video.twimg.com/amplify_video/1491441845964001288/pl/1280x720/P3XSOWfYFnG9DD0m.m3u8", true],
      ["https://video.twimg.com/amplify_video/1491441845964001288/pl/mp4a/128000/B1SPQkGfFaXQ90Fi.m3u8", true],
    ]);
    expect(plan).toMatchObject({ videoInput: 0, audioInput: 1, adtsAudio: true });
    expect(plan.inputs[0]!.headers["User-Agent"]).toMatch(/Chrome\/144/);
  });

  test("mp3 reads only the audio input", () => {
    const plan = planRemux(chosenFormats(ytdlpFixture("twitter_nasa_1491475671058681863")), "mp3");
    expect(plan.inputs.map((i) => i.url)).toEqual([
      "https://video.twimg.com/amplify_video/1491441845964001288/pl/mp4a/128000/B1SPQkGfFaXQ90Fi.m3u8",
    ]);
    expect(plan).toMatchObject({ output: "mp3", videoInput: null, audioInput: 0 });
  });

  test("sound of a format that says it has none is 400 saying so, for MP3 and M4A; an MP4 of it is fine", () => {
    const silent = { format_id: "v", url: "https://cdn/v.mp4", ext: "mp4", vcodec: "avc1.64001f", acodec: "none" };
    for (const output of ["mp3", "m4a"] as const) {
      expect(() => planRemux([silent], output)).toThrow(
        expect.objectContaining({
          status: 400,
          code: "invalid_parameter",
          message: expect.stringContaining("no sound"),
        }),
      );
    }
    expect(planRemux([silent], "mp4")).toMatchObject({ videoInput: 0 });
  });

  test("a single chosen format is read from the top level (X http-1280), with the size yt-dlp estimates", () => {
    const plan = planRemux(chosenFormats(ytdlpFixture("twitter_verge_957383241714970624")), "mp4");
    expect(plan.inputs).toEqual([{
      url: "https://video.twimg.com/amplify_video/943561675927519232/vid/720x720/h1uN7biCI-Fbzm9D.mp4",
      headers: expect.objectContaining({ Referer: "https://twitter.com/verge/status/957383241714970624" }),
      cookies: [],
      hls: false,
      sizeBytes: 24012881, // filesize_approx
    }]);
    expect(plan).toMatchObject({ videoInput: 0, audioInput: 0, adtsAudio: false });
  });

  test("the cookies yt-dlp names for a format go to ffmpeg scoped, never as a bare Cookie header", () => {
    const info = YtdlpInfo.parse({
      id: "c",
      url: "https://cdn.example.com/v.mp4",
      ext: "mp4",
      protocol: "https",
      cookies: "s=1; Domain=.example.com; Path=/",
      http_headers: { Cookie: "old=2", Referer: "https://example.com/p" },
    });
    expect(planRemux(chosenFormats(info), "mp4").inputs).toEqual([{
      url: "https://cdn.example.com/v.mp4",
      headers: { Referer: "https://example.com/p" },
      cookies: ["s=1; domain=.example.com; path=/", "old=2; domain=cdn.example.com; path=/"],
      hls: false,
    }]);
  });

  test("VP8 and Vorbis are re-encoded, since MP4 cannot hold them", () => {
    const info = YtdlpInfo.parse({
      id: "w",
      url: "http://a/v.webm",
      ext: "webm",
      protocol: "http",
      vcodec: "vp8",
      acodec: "vorbis",
    });
    expect(planRemux(chosenFormats(info), "mp4")).toMatchObject({ transcodeVideo: true, transcodeAudio: true });
  });

  test("HLS with Opus audio gets no ADTS filter", () => {
    const info = YtdlpInfo.parse({
      id: "o",
      url: "http://a/x.m3u8",
      ext: "mp4",
      protocol: "m3u8_native",
      vcodec: "vp09.00.40.08",
      acodec: "opus",
    });
    expect(planRemux(chosenFormats(info), "mp4").adtsAudio).toBe(false);
  });

  test("HLS with MP3 sound gets no ADTS filter either: the filter takes AAC alone, whatever the container", () => {
    const info = YtdlpInfo.parse({
      id: "m",
      url: "http://a/x.m3u8",
      ext: "mp4",
      protocol: "m3u8_native",
      acodec: "mp3",
    });
    expect(planRemux(chosenFormats(info), "mp4").adtsAudio).toBe(false);
  });

  test("audio=m4a: an MPEG-TS whose codec is unnamed is ffmpeg's to read, a named codec other than AAC is 400", () => {
    const ts = YtdlpInfo.parse({ id: "t", url: "http://a/x.ts", ext: "ts" });
    expect(planRemux(chosenFormats(ts), "m4a")).toMatchObject({ output: "m4a", audioInput: 0, transcodeAudio: false });
    const opus = YtdlpInfo.parse({ id: "w", url: "http://a/x.mp4", ext: "mp4", vcodec: "none", acodec: "opus" });
    expect(() => planRemux(chosenFormats(opus), "m4a")).toThrow(/sound is opus, not AAC/);
  });

  test("a DASH format is 400 format_not_streamable", () => {
    const info = YtdlpInfo.parse({
      id: "d",
      url: "https://a/manifest.mpd",
      protocol: "http_dash_segments",
      format_id: "dash-video-1",
    });
    expect(() => planRemux(chosenFormats(info), "mp4")).toThrow(
      expect.objectContaining({ status: 400, code: "format_not_streamable" }),
    );
  });

  test("a non-http URL is never handed to ffmpeg", () => {
    const info = YtdlpInfo.parse({ id: "f", url: "file:///etc/passwd", protocol: "file" });
    expect(() => planRemux(chosenFormats(info), "mp4")).toThrow(expect.objectContaining({ status: 400 }));
  });

  test("no media at all is 502", () => {
    expect(() => planRemux(chosenFormats(YtdlpInfo.parse({ id: "x" })), "mp4")).toThrow(
      expect.objectContaining({ status: 502, code: "upstream_failed" }),
    );
  });
});
