import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, test } from "vitest";
import {
  classifyFfmpegFailure,
  ffmpegArgs,
  type FfmpegSource,
  readFfmpegLog,
  type RemuxPlan,
} from "../../src/media/ffmpeg.ts";

const run = promisify(execFile);
const limits = { readTimeoutMs: 5000, reconnectDelayMaxSec: 2, maxReconnects: 3 };
const file = (url: string, headers: Record<string, string> = {}) => ({ url, headers, hls: false });
const single: RemuxPlan = {
  output: "mp4",
  inputs: [file("https://cdn/v.mp4", { "User-Agent": "UA/1", Referer: "https://site/page" })],
  videoInput: 0,
  audioInput: 0,
  transcodeVideo: false,
  transcodeAudio: false,
  adtsAudio: false,
};
const mediaDemuxers = "mov,matroska,mp3,aac,ogg,flv,mpegts,wav,flac,webvtt,srt,ass";
const inputPrefix = [
  "-protocol_whitelist",
  "http,https,tls,tcp,crypto,httpproxy",
  "-format_whitelist",
  mediaDemuxers,
  "-reconnect",
  "1",
  "-reconnect_streamed",
  "1",
  "-reconnect_on_network_error",
  "1",
  "-reconnect_delay_max",
  "2",
  "-rw_timeout",
  "5000000",
];

/** Feeds `lines` to a fresh reader: what the first line that ended the run said, and whether a clean exit still failed. */
const judge = (lines: string[], source?: FfmpegSource) => {
  const log = readFfmpegLog(limits, source);
  const verdicts = lines.map((line) => log.readLog(line));
  return {
    ended: verdicts.find((v) => typeof v === "object") ?? null,
    kept: verdicts.filter((v) => v === "keep").length,
    failed: log.failedDespiteExit0(""),
  };
};

describe("ffmpegArgs()", () => {
  test("one file to fragmented MP4: copy, optional streams, headers sent exactly", () => {
    expect(ffmpegArgs(single, limits)).toEqual([
      "-nostdin",
      "-hide_banner",
      "-loglevel",
      "repeat+warning",
      "-stats",
      "-xerror",
      "-copyts",
      "-start_at_zero",
      ...inputPrefix,
      "-user_agent",
      "UA/1",
      "-headers",
      "Referer: https://site/page\r\n",
      "-i",
      "https://cdn/v.mp4",
      "-map",
      "0:v:0?",
      "-map",
      "0:a:0?",
      "-c:v",
      "copy",
      "-c:a",
      "copy",
      "-movflags",
      "frag_keyframe+empty_moov+default_base_moof",
      "-f",
      "mp4",
      "pipe:1",
    ]);
  });

  test("two HLS inputs merged: required maps, ADTS filter, warnings logged and no -xerror", () => {
    const args = ffmpegArgs({
      ...single,
      inputs: [{ ...file("https://cdn/v.m3u8"), hls: true }, { ...file("https://cdn/a.m3u8"), hls: true }],
      audioInput: 1,
      adtsAudio: true,
    }, limits);
    expect(args.slice(0, 5)).toEqual(["-nostdin", "-hide_banner", "-loglevel", "repeat+warning", "-stats"]);
    expect(args).not.toContain("-xerror");
    expect(args.filter((a) => a === "-i")).toHaveLength(2);
    // Each reads the gate's checked copy of its playlist (hls-playlists.ts) as HLS, and what it links to as media only.
    expect(args.slice(args.indexOf("-protocol_whitelist"), args.indexOf("-protocol_whitelist") + 6)).toEqual([
      "-protocol_whitelist",
      "http,https,tls,tcp,crypto,httpproxy",
      "-format_whitelist",
      `hls,${mediaDemuxers}`,
      "-f",
      "hls",
    ]);
    expect(args.slice(args.indexOf("-map"))).toEqual([
      "-map",
      "0:v:0",
      "-map",
      "1:a:0",
      "-c:v",
      "copy",
      "-c:a",
      "copy",
      "-bsf:a",
      "aac_adtstoasc",
      "-movflags",
      "frag_keyframe+empty_moov+default_base_moof",
      "-f",
      "mp4",
      "pipe:1",
    ]);
  });

  const witness = (...maps: string[]) => [
    ...maps.flatMap((map) => ["-map", map]),
    "-c",
    "copy",
    "-f",
    "framecrc",
    "-y",
    "/dev/null",
  ];

  test("MP3 at 320 kb/s of the file's own timestamps, its sound also copied to a witness whose muxer checks them", () => {
    const args = ffmpegArgs({ ...single, output: "mp3", videoInput: null }, limits);
    expect(args.slice(4, 9)).toEqual(["-stats", "-xerror", "-copyts", "-start_at_zero", "-protocol_whitelist"]);
    expect(args.slice(args.indexOf("-map"))).toEqual([
      "-map",
      "0:a:0",
      "-vn",
      "-c:a",
      "libmp3lame",
      "-b:a",
      "320k",
      "-f",
      "mp3",
      "pipe:1",
      ...witness("0:a:0"),
    ]);
  });

  const soundWitness = (map: string) => ["-map", map, "-f", "null", "-y", "/dev/null"];

  test("stream copies need no timestamp witness (their own muxer sees the timestamps); copied sound sure to be there is decoded by a witness", () => {
    expect(ffmpegArgs(single, limits).at(-1)).toBe("pipe:1");
    const m4a = ffmpegArgs({ ...single, output: "m4a", videoInput: null }, limits);
    expect(m4a.slice(m4a.indexOf("pipe:1"))).toEqual(["pipe:1", ...soundWitness("0:a:0")]);
    const merged = ffmpegArgs({
      ...single,
      inputs: [file("https://cdn/v.mp4"), file("https://cdn/a.m4a")],
      audioInput: 1,
    }, limits);
    expect(merged.slice(merged.indexOf("pipe:1"))).toEqual(["pipe:1", ...soundWitness("1:a:0")]);
  });

  test("re-encodes what MP4 cannot hold, each re-encoded stream witnessed; no ADTS filter after re-encoding", () => {
    const args = ffmpegArgs({ ...single, transcodeVideo: true, transcodeAudio: true, adtsAudio: true }, limits);
    expect(args.join(" ")).toContain("-c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k -movflags");
    expect(args).not.toContain("aac_adtstoasc");
    expect(args.slice(args.indexOf("pipe:1"))).toEqual(["pipe:1", ...witness("0:v:0?", "0:a:0?")]);
    const twoInputs = ffmpegArgs({
      ...single,
      inputs: [file("https://cdn/v.webm"), file("https://cdn/a.webm")],
      audioInput: 1,
      transcodeAudio: true,
    }, limits);
    expect(twoInputs.slice(twoInputs.indexOf("pipe:1"))).toEqual(["pipe:1", ...witness("1:a:0")]);
  });

  test("every output of files keeps the files' own timestamps, so that a jump back reaches a muxer", () => {
    for (const output of ["mp4", "mp3", "m4a"] as const) {
      const args = ffmpegArgs({ ...single, output }, limits);
      expect(args.slice(args.indexOf("-xerror"), args.indexOf("-xerror") + 3)).toEqual([
        "-xerror",
        "-copyts",
        "-start_at_zero",
      ]);
    }
  });

  test("HLS keeps ffmpeg's own timestamp fixes and has no witness", () => {
    const args = ffmpegArgs(
      { ...single, output: "mp3", inputs: [{ ...file("https://cdn/a.m3u8"), hls: true }] },
      limits,
    );
    expect(args).not.toContain("-copyts");
    expect(args.at(-1)).toBe("pipe:1");
  });

  test("a subtitle file is read after the media and written as mov_text with its ISO 639-2 language", () => {
    const args = ffmpegArgs({
      ...single,
      subtitles: { lang: "pt-BR", input: file("https://cdn/pt.vtt", { Referer: "https://site/page" }) },
    }, limits);
    expect(args.filter((a) => a === "-i").length).toBe(2);
    expect(args.slice(args.lastIndexOf("-i"), args.lastIndexOf("-i") + 2)).toEqual(["-i", "https://cdn/pt.vtt"]);
    expect(args.slice(args.indexOf("-map"))).toEqual([
      // The media input alone still has optional streams: the subtitle file is not a second source.
      "-map",
      "0:v:0?",
      "-map",
      "0:a:0?",
      "-c:v",
      "copy",
      "-c:a",
      "copy",
      "-map",
      "1:s:0",
      "-c:s",
      "mov_text",
      "-metadata:s:s:0",
      "language=por",
      "-movflags",
      "frag_keyframe+empty_moov+default_base_moof",
      "-f",
      "mp4",
      "pipe:1",
    ]);
  });

  test("a header value cannot inject another header line", () => {
    const args = ffmpegArgs({ ...single, inputs: [file("https://cdn/v.mp4", { Cookie: "a=1\r\nX-Evil: 1" })] }, limits);
    expect(args[args.indexOf("-headers") + 1]).toBe("Cookie: a=1 X-Evil: 1\r\n");
  });
});

describe("readFfmpegLog()", () => {
  test.each([
    ["[hls @ 0x1] Failed to open segment 3 of playlist 0", true],
    ["http://a/v.mp4: Input/output error", true],
    ["", false],
    ["[http @ 0x1] Stream ends prematurely at 46404, should be 92809", false],
    // A reconnect names the read's error, but the input is not lost: the reconnect may deliver it.
    ["[http @ 0x1] Will reconnect at 46404 in 0 second(s), error=Input/output error.", false],
  ])("after %j a clean exit fails: %s", (line, failed) => {
    expect(judge([line]).failed).toBe(failed);
  });

  test("a part out of reach with no error from the source: source_not_streamable, retrying will not help", () => {
    const { ended } = judge([
      "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] stream 1, offset 0x30: partial file",
      "[http @ 0x2] Stream ends prematurely at 48, should be 92809",
    ]);
    expect(ended).toMatchObject({ status: 502, code: "source_not_streamable" });
    expect((ended as Error).message).toContain("Retrying will not help");
  });

  test("a part out of reach after the source failed is a temporary failure", () => {
    const { ended } = judge([
      "[http @ 0x1] HTTP error 503 Service Unavailable",
      "[mov,mp4 @ 0x2] stream 0, offset 0xb5e2: partial file",
    ]);
    expect(ended).toMatchObject({ status: 502, code: "upstream_failed" });
  });

  test("damaged media ends the run at once", () => {
    const { ended } = judge(["[NULL @ 0x1] Invalid NAL unit size (1718773093 > 3623)."]);
    expect(ended).toMatchObject({ status: 502, code: "upstream_failed" });
    expect(String((ended as Error).cause)).toContain("Invalid NAL unit size");
  });

  test("reconnects past the bound end the run; up to it they are kept for the log", () => {
    const reconnect = "[http @ 0x1] Will reconnect at 46404 in 0 second(s), error=Input/output error.";
    expect(judge(Array(3).fill(reconnect))).toEqual({ ended: null, kept: 3, failed: false });
    expect(judge(Array(4).fill(reconnect)).ended).toMatchObject({
      status: 502,
      code: "upstream_failed",
      message: expect.stringContaining("4 times"),
    });
  });
});

describe("readFfmpegLog() and the source's length", () => {
  const progress = (time: string) =>
    `frame=  250 fps=0.0 q=-1.0 size=     512kB time=${time} bitrate= 400.0kbits/s speed=10x    `;
  const twentySeconds: FfmpegSource = { durationSec: 20, hls: false };

  test("progress lines stay out of the log's excerpt", () => {
    const log = readFfmpegLog(limits, twentySeconds);
    expect(log.readLog(progress("00:00:05.00"))).toBe("omit");
    expect(log.readLog("size=       0kB time=N/A bitrate=N/A speed=N/A    ")).toBe("omit");
    expect(
      log.readLog(
        "frame=    0 fps=0.0 q=0.0 size=       0kB time=-577014:32:22.77 bitrate=  -0.0kbits/s speed=N/A    ",
      ),
    ).toBe("omit");
  });

  /** 4 s of fragmented M4A as page mode's ffmpeg writes it: a fragment a second. */
  let m4a: Uint8Array;
  beforeAll(async () => {
    const { stdout } = await run("ffmpeg", [
      ...["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "4"],
      ...["-c:a", "aac", "-movflags", "empty_moov+default_base_moof", "-frag_duration", "1000000", "-f", "mp4"],
      "pipe:1",
    ], { encoding: "buffer" });
    m4a = new Uint8Array(stdout);
  });

  /** Feeds the file to `log` in small chunks, as ffmpeg's stdout comes: the first verdict, if any. */
  const readAll = (log: ReturnType<typeof readFfmpegLog>, bytes: Uint8Array) => {
    for (let at = 0; at < bytes.byteLength; at += 4096) {
      const verdict = log.readOutput(bytes.subarray(at, at + 4096));
      if (verdict) return { verdict, at };
    }
    return null;
  };

  test("fragmented output longer than the source's length ends the run at once, from the fragments it writes", () => {
    const log = readFfmpegLog(limits, { durationSec: 1, hls: false, output: "m4a" });
    const ended = readAll(log, m4a);
    expect(ended?.verdict).toMatchObject({
      status: 502,
      code: "upstream_failed",
      message: expect.stringMatching(/longer than its source \(3\.\d s of 1 s\)/),
    });
    expect(ended!.at).toBeLessThan(m4a.byteLength - 4096);
  });

  test("fragmented output shorter than the source's length fails a clean exit; the right length passes", () => {
    const short = readFfmpegLog(limits, { durationSec: 10, hls: false, output: "m4a" });
    expect(readAll(short, m4a)).toBeNull();
    expect(short.failedDespiteExit0("")).toBe(true);
    expect(short.classify(0, "")).toMatchObject({
      status: 502,
      message: expect.stringContaining("shorter than its source"),
    });
    const whole = readFfmpegLog(limits, { durationSec: 4, hls: false, output: "mp4" });
    expect(readAll(whole, m4a)).toBeNull();
    expect(whole.failedDespiteExit0("")).toBe(false);
    const unknown = readFfmpegLog(limits, { durationSec: null, hls: false });
    expect(readAll(unknown, m4a)).toBeNull();
    expect(unknown.failedDespiteExit0("")).toBe(false);
  });

  test("time= does not count for fragmented output (-copyts makes it count from the first report)", () => {
    const log = readFfmpegLog(limits, twentySeconds);
    expect(log.readLog(progress("00:00:31.08"))).toBe("omit");
    expect(log.failedDespiteExit0("")).toBe(false);
  });

  test("MP3's length is its size at 320 kb/s, not its time= (which -copyts counts from the first report)", () => {
    const mp3 = readFfmpegLog(limits, { ...twentySeconds, output: "mp3" });
    // 800 kB is 20.48 s at 40 000 bytes a second, whatever time= says.
    expect(mp3.readLog("size=     800kB time=00:00:02.11 bitrate= 612.9kbits/s speed=26.6x    ")).toBe("omit");
    expect(mp3.failedDespiteExit0("")).toBe(false);
    expect(mp3.readLog("size=    1300kB time=00:00:05.00 bitrate= 612.9kbits/s speed=26.6x    ")).toMatchObject({
      code: "upstream_failed",
      message: expect.stringContaining("longer than its source (33.3 s of 20 s)"),
    });
    const short = readFfmpegLog(limits, { ...twentySeconds, output: "mp3" });
    short.readLog("size=     400kB time=00:00:19.90 bitrate= 320.0kbits/s speed=26.6x    ");
    expect(short.failedDespiteExit0("")).toBe(true);
  });

  test("timestamps that go back after a reconnect are damage; without a reconnect ffmpeg's own fix is trusted", () => {
    const wentBack = "[mpegts @ 0x1] DTS 128090 < 1118090 out of order";
    const reconnect = "[http @ 0x1] Will reconnect at 333568 in 0 second(s), error=Input/output error.";
    expect(judge([wentBack]).ended).toBeNull();
    expect(judge([reconnect, wentBack]).ended).toMatchObject({ status: 502, code: "upstream_failed" });
  });

  test("sound asked of a source without any is 400 saying so; in an MP4 the same line is no such verdict", () => {
    const line = "Stream map '0:a:0' matches no streams.";
    expect(judge([line], { durationSec: null, hls: false, output: "mp3" }).ended).toMatchObject({
      status: 400,
      code: "invalid_parameter",
      message: expect.stringContaining("no sound"),
    });
    expect(judge([line]).ended).toBeNull();
  });

  test("an M4A copy of sound that is not AAC is 400 naming the codec ffmpeg read (its filter refused it)", () => {
    const line =
      "[aac_adtstoasc @ 0x5641d038cb40] Codec 'mp3' (86017) is not supported by the bitstream filter 'aac_adtstoasc'. Supported codecs are: aac (86018) ";
    expect(judge([line], { durationSec: null, hls: false, output: "m4a" }).ended).toMatchObject({
      status: 400,
      code: "format_not_available",
      message: expect.stringContaining("sound is mp3, not AAC"),
    });
  });

  test("a corrupt MPEG-TS packet is damage in a file, and in HLS only after a reconnect", () => {
    const corrupt = "[mpegts @ 0x1] Packet corrupt (stream = 0, dts = 304490).";
    const reconnect = "[http @ 0x1] Will reconnect at 0 in 0 second(s), error=End of file.";
    expect(judge([corrupt]).ended).toMatchObject({ code: "upstream_failed" });
    expect(judge([corrupt, "http://gate/p.m3u8: corrupt input packet in stream 0"], { durationSec: null, hls: true }))
      .toEqual({ ended: null, kept: 0, failed: false });
    expect(judge([reconnect, corrupt], { durationSec: null, hls: true }).ended).toMatchObject({
      code: "upstream_failed",
    });
  });
});

describe("classifyFfmpegFailure()", () => {
  test("404 from the media host is 404, anything else 502", () => {
    expect(classifyFfmpegFailure(1, "http://a/gone.mp4: Server returned 404 Not Found\n")).toMatchObject({
      status: 404,
      code: "not_found",
    });
    expect(classifyFfmpegFailure(1, "http://a/x.mp4: Server returned 403 Forbidden")).toMatchObject({
      status: 502,
      code: "upstream_failed",
    });
    const refused = classifyFfmpegFailure(1, "http://127.0.0.1:1/x.mp4: Connection refused");
    expect(refused).toMatchObject({ status: 502 });
    expect(refused.message).not.toContain("refused");
    expect(String(refused.cause)).toContain("Connection refused");
    expect(classifyFfmpegFailure(null, "").message).toContain("killed");
  });
});
