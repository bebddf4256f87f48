// ffmpeg argument lists for page mode: read the media URLs directly (ffmpeg seeks with Range,
// which a pipe cannot) and write fragmented MP4 or MP3 to stdout. Pure; see remux.ts for
// running them.
import type { ClipRange } from "../http/clip-range.ts";
import { ApiError, upstreamFailed } from "../http/problem.ts";
import type { SpawnStreamOptions } from "../processes/child-stream.ts";
import { fragmentClock } from "./fmp4-clock.ts";
import { mp4Language } from "./language.ts";

export interface FfmpegInput {
  url: string;
  /** Request headers yt-dlp says the URL needs (User-Agent, Referer); sent exactly. */
  headers: Record<string, string>;
  /** Cookies in Set-Cookie syntax, each with the domain ffmpeg may send it to. */
  cookies?: string[];
  /** An HLS playlist rather than a media file. */
  hls: boolean;
  /** The file's size in bytes when the source says it (yt-dlp's filesize or filesize_approx): the basis of the size estimate. */
  sizeBytes?: number;
}

/** A subtitle file (WebVTT, SRT, ASS) to embed as a mov_text stream. */
export interface SubtitleInput {
  input: FfmpegInput;
  /** The language as the platform names it (`en`, `pt-BR`); MP4 gets its ISO 639-2 code. */
  lang: string;
}

export interface RemuxPlan {
  /** MP4; MP3 at 320k (re-encoded); or M4A, the source's AAC sound copied as it is. */
  output: "mp4" | "mp3" | "m4a";
  /** One input, or a video input and an audio input to merge. */
  inputs: FfmpegInput[];
  /** Index into `inputs` of the stream's source; null when there is none (mp3 has no video). */
  videoInput: number | null;
  audioInput: number | null;
  /** Re-encode to H.264 / AAC when the source codec cannot go into MP4 as is (VP8, Vorbis). */
  transcodeVideo: boolean;
  transcodeAudio: boolean;
  /** Audio is ADTS AAC from MPEG-TS (HLS): MP4 needs it rewritten, or ffmpeg fails. */
  adtsAudio: boolean;
  /** MP4 only: a subtitle track to add, read after the media inputs. */
  subtitles?: SubtitleInput;
  /** The part of the media to send (media/clip.ts); an exact one comes with the video re-encoded. */
  clip?: ClipRange;
}

export interface FfmpegLimits {
  /** Give up when the source sends nothing for this long; ffmpeg waits forever by default. */
  readTimeoutMs: number;
  /**
   * Longest wait between reconnect attempts (they wait 0, 1, 2, 4, ... s). ffmpeg's default
   * of 120 s keeps a broken download hanging for minutes, deaf to SIGTERM.
   */
  reconnectDelayMaxSec: number;
  /**
   * Reconnects a run may make in all. ffmpeg 5.1 has no such bound, and a source that hangs up
   * mid-file and ignores Range is reconnected to without end (each attempt reads a little, which
   * resets ffmpeg's delay); the log says each attempt, and past this many the run fails.
   */
  maxReconnects: number;
}

export const defaultFfmpegLimits: FfmpegLimits = { readTimeoutMs: 30_000, reconnectDelayMaxSec: 4, maxReconnects: 10 };

/** What a download is sent as. */
export const outputTypes = {
  mp4: { contentType: "video/mp4", extension: "mp4" },
  mp3: { contentType: "audio/mpeg", extension: "mp3" },
  m4a: { contentType: "audio/mp4", extension: "m4a" },
} as const;

// Keeps a crafted source from making ffmpeg read local files or other protocols.
const protocolWhitelist = "http,https,tls,tcp,crypto,httpproxy";
// The containers a source may be read as. Not hls, dash or concat, which open further links
// themselves: a "media file" answered with a playlist would otherwise be read as one, unchecked.
// An HLS input is the gate's checked copy of its playlist (hls-playlists.ts), read as HLS.
const mediaDemuxers = "mov,matroska,mp3,aac,ogg,flv,mpegts,wav,flac,webvtt,srt,ass";
const inputKindArgs = (
  input: FfmpegInput,
) => (input.hls ? ["-format_whitelist", `hls,${mediaDemuxers}`, "-f", "hls"] : ["-format_whitelist", mediaDemuxers]);

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== "user-agent")
    .map(([name, value]) => `${name}: ${value.replace(/[\r\n]+/g, " ")}\r\n`)
    .join("");
}

/**
 * Input seeking: ffmpeg asks the source for the part from `-ss` on (by Range, or an HLS playlist's
 * segments) instead of reading from the start, and stops reading at `-to`. A copied stream then
 * starts at the key frame at or before `-ss`; an encoded one exactly there (ffmpeg decodes from
 * that key frame and drops what comes before).
 */
function clipInputArgs(clip: ClipRange | undefined): string[] {
  if (clip === undefined) return [];
  return [
    ...(clip.startSec > 0 ? ["-ss", String(clip.startSec)] : []),
    ...(clip.endSec === null ? [] : ["-to", String(clip.endSec)]),
  ];
}

function inputArgs(input: FfmpegInput, limits: FfmpegLimits, proxy: string | undefined, clip?: ClipRange): string[] {
  const userAgent = Object.entries(input.headers).find(([name]) => name.toLowerCase() === "user-agent")?.[1];
  const headers = headerLines(input.headers);
  return [
    "-protocol_whitelist",
    protocolWhitelist,
    ...inputKindArgs(input),
    // A dropped connection otherwise ends the input early with exit 0: a short file that looks complete.
    "-reconnect",
    "1",
    "-reconnect_streamed",
    "1",
    "-reconnect_on_network_error",
    "1",
    "-reconnect_delay_max",
    String(limits.reconnectDelayMaxSec),
    "-rw_timeout",
    String(limits.readTimeoutMs * 1000),
    ...(userAgent ? ["-user_agent", userAgent.replace(/[\r\n]+/g, " ")] : []),
    ...(headers ? ["-headers", headers] : []),
    // The egress gate: https goes through it by CONNECT, and HLS segments and redirects inherit it.
    ...(proxy ? ["-http_proxy", proxy] : []),
    ...(input.cookies?.length ? ["-cookies", input.cookies.join("\n")] : []),
    ...clipInputArgs(clip),
    "-i",
    input.url,
  ];
}

function mp4OutputArgs(plan: RemuxPlan): string[] {
  const { videoInput, audioInput } = plan;
  // With a single input either stream may be missing (a silent clip); "?" makes that fine.
  const optional = plan.inputs.length === 1 ? "?" : "";
  return [
    ...(videoInput === null ? [] : ["-map", `${videoInput}:v:0${optional}`]),
    ...(audioInput === null ? [] : ["-map", `${audioInput}:a:0${optional}`]),
    ...(plan.transcodeVideo ? ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20"] : ["-c:v", "copy"]),
    ...(plan.transcodeAudio ? ["-c:a", "aac", "-b:a", "192k"] : ["-c:a", "copy"]),
    ...(plan.adtsAudio && !plan.transcodeAudio ? ["-bsf:a", "aac_adtstoasc"] : []),
    ...(plan.subtitles ? subtitleOutputArgs(plan.inputs.length, plan.subtitles.lang) : []),
    // Fragmented MP4 can be written to a pipe without seeking back to the start.
    "-movflags",
    "frag_keyframe+empty_moov+default_base_moof",
    "-f",
    "mp4",
  ];
}

/** MP4 holds text subtitles only as mov_text (3GPP timed text); its language is a three-letter code. */
function subtitleOutputArgs(input: number, lang: string): string[] {
  return ["-map", `${input}:s:0`, "-c:s", "mov_text", "-metadata:s:s:0", `language=${mp4Language(lang)}`];
}

function mp3OutputArgs(plan: RemuxPlan): string[] {
  return ["-map", `${plan.audioInput ?? 0}:a:0`, "-vn", "-c:a", "libmp3lame", "-b:a", "320k", "-f", "mp3"];
}

/**
 * The sound copied as it is. `aac_adtstoasc` always: it rewrites ADTS AAC (MPEG-TS, HLS) as MP4
 * needs it, passes MP4's own AAC through unchanged, and refuses any other codec before the first
 * byte (measured with ffmpeg 5.1), so the sound's codec is what ffmpeg reads, never guessed from
 * the container a source names (an MPEG-TS may hold AAC or MP3; readFfmpegLog `notAac`).
 */
function m4aOutputArgs(plan: RemuxPlan): string[] {
  return [
    "-map",
    `${plan.audioInput ?? 0}:a:0`,
    "-vn",
    "-c:a",
    "copy",
    "-bsf:a",
    "aac_adtstoasc",
    // Every audio packet is a keyframe, and frag_keyframe then holds the whole file back as one
    // fragment (measured): a fragment a second instead.
    "-movflags",
    "empty_moov+default_base_moof",
    "-frag_duration",
    "1000000",
    "-f",
    "mp4",
  ];
}

/** The options of the output the caller is sent (before its `pipe:1`), per kind: how page mode writes the file. */
export const outputArgs = { mp4: mp4OutputArgs, mp3: mp3OutputArgs, m4a: m4aOutputArgs } as const;

/** The streams of the plan that are encoded rather than copied, as `-map` specifiers. */
function encodedStreams(plan: RemuxPlan): string[] {
  const audio = `${plan.audioInput ?? 0}:a:0`;
  if (plan.output === "mp3") return [audio];
  if (plan.output === "m4a") return [];
  const optional = plan.inputs.length === 1 ? "?" : "";
  return [
    ...(plan.transcodeVideo && plan.videoInput !== null ? [`${plan.videoInput}:v:0${optional}`] : []),
    ...(plan.transcodeAudio && plan.audioInput !== null ? [`${plan.audioInput}:a:0${optional}`] : []),
  ];
}

/**
 * A second output that keeps nothing (`framecrc` to /dev/null): the encoded streams copied as
 * they came in, so that its muxer checks their timestamps as a stream copy's does. An encoder
 * numbers its own time and MP3 holds none, so a source that answered a reconnect from its start
 * would otherwise be encoded on as more of the file, with no sign in the log (issue 43).
 */
function witnessArgs(plan: RemuxPlan): string[] {
  const streams = encodedStreams(plan);
  if (streams.length === 0) return [];
  return [...streams.flatMap((stream) => ["-map", stream]), "-c", "copy", "-f", "framecrc", "-y", "/dev/null"];
}

/**
 * The copied sound that is sure to be there (M4A's; a merge's separate sound), as a `-map`
 * specifier; null when there is none. Not an MP4 of one file, whose sound may be missing (a
 * silent clip): an output with nothing to map fails the run.
 */
function copiedSound(plan: RemuxPlan): string | null {
  const copied = plan.output === "m4a" || (plan.output === "mp4" && plan.inputs.length > 1 && !plan.transcodeAudio);
  return copied && plan.audioInput !== null ? `${plan.audioInput}:a:0` : null;
}

/**
 * A third output that keeps nothing: the copied sound decoded (`null` to /dev/null). A copy
 * reads AAC frames by the sizes the container's index gives and never looks into them, so a
 * source that answered a reconnect from its start, or sent damaged bytes, would be copied on as
 * sound of the right length that does not play (measured: M4A of an M4A file that hung up once
 * and ignored Range); its decoder says so, and `-xerror` ends the run. Decoding AAC costs about
 * 0.1 s of CPU per 10 minutes of sound (measured), against the 0.5 s the copy itself costs.
 */
function soundWitnessArgs(plan: RemuxPlan): string[] {
  const sound = copiedSound(plan);
  return sound === null ? [] : ["-map", sound, "-f", "null", "-y", "/dev/null"];
}

/**
 * For a clip cut at a key frame: a last output that writes the first copied video packet's
 * times as text (`framecrc`) to stderr, where readFfmpegLog reads where the clip really starts
 * before the response is sent (`clipStart`). Sound alone and exact cuts start where asked.
 */
function clipWitnessArgs(plan: RemuxPlan): string[] {
  if (plan.clip === undefined || !keyFrameCut(plan)) return [];
  const optional = plan.inputs.length === 1 ? "?" : "";
  return ["-map", `${plan.videoInput}:v:0${optional}`, "-c", "copy", "-frames:v", "1", "-f", "framecrc", "pipe:2"];
}

/** Whether the plan's clip starts at a key frame of its copied video rather than where it was asked to. */
export function keyFrameCut(plan: RemuxPlan): boolean {
  return plan.clip !== undefined && plan.output === "mp4" && plan.videoInput !== null && !plan.transcodeVideo;
}

/**
 * With files as inputs, `-xerror` makes a failed read (a connection that broke off for good)
 * exit 1 instead of 0, and a muxer's "Non-monotonous DTS" (a source that answered a reconnect
 * from its start) end the run. `-copyts -start_at_zero` keeps the timestamps as the file has
 * them: by default ffmpeg quietly shifts an MPEG-TS input whose time jumps back (any jump of more
 * than 0.1 s), and the jump then reaches no muxer (measured: MP3 read on as 93 s of a 60 s file,
 * M4A as 30.8 s of a 20 s one); the output is the same. With `-copyts` ffmpeg 5.1's `time=`
 * counts from its first report, not from the start (measured: 2.1 s of a 4 s file), so the
 * output's length is read from the output itself instead: MP3's from its size (mp3BytesPerSec),
 * fragmented MP4's from its fragments (fmp4-clock.ts).
 * Neither with HLS: ffmpeg 5.1's HLS reader repeats the first timestamp of an audio-only MPEG-TS
 * playlist, which ffmpeg quietly fixes, but which `-xerror` turns into "Non-monotonous DTS ...
 * aborting" (measured), and a playlist's segments may start a new timeline by design. Warnings
 * are logged either way: each reconnect is one, and readFfmpegLog reads them. `repeat` keeps
 * ffmpeg from folding equal lines into "Last message repeated N times", which it writes only once
 * another line comes (a source that loops logs nothing else), so every reconnect is a line;
 * `-stats` writes how far the output has come (`size=`, `time=`) twice a second, even at this log level.
 */
export function ffmpegArgs(plan: RemuxPlan, limits: FfmpegLimits, proxy?: string): string[] {
  const hls = plan.inputs.some((input) => input.hls);
  return [
    "-nostdin",
    "-hide_banner",
    "-loglevel",
    "repeat+warning",
    "-stats",
    ...(hls ? [] : ["-xerror", "-copyts", "-start_at_zero"]),
    ...plan.inputs.flatMap((input) => inputArgs(input, limits, proxy, plan.clip)),
    ...(plan.subtitles && plan.output === "mp4" ? inputArgs(plan.subtitles.input, limits, proxy, plan.clip) : []),
    ...outputArgs[plan.output](plan),
    "pipe:1",
    ...(hls ? [] : [...witnessArgs(plan), ...soundWitnessArgs(plan)]),
    ...clipWitnessArgs(plan),
  ];
}

/** Lines of ffmpeg's log that say something about the run (measured with ffmpeg 5.1). */
const logSigns = {
  /** `-stats`: how far the output has come, as `size=NkB` (or N/A) and a `time=` that -copyts makes unreliable (see ffmpegArgs). */
  progress: /^(?:frame=.*)?L?size=\s*(?:(\d+)kB)?.*\btime=/,
  /** One reconnect to a source that broke off; the line also names the read's error. */
  reconnect: /Will reconnect at \d+/,
  /** The source answered with an error, or could not be reached. */
  sourceError: /HTTP error \d{3}|Server returned [45]\d\d|Connection refused|Connection timed out/i,
  /**
   * The MP4 reader could not get back to bytes it needs: a seek the source did not honour. With
   * no error from the source before it, the source ignores Range (an index at the end, read in
   * one pass, is then out of reach).
   */
  partialFile: /: partial file/,
  /** Bytes that are not the media they claim to be: ffmpeg would copy them on, broken. */
  corrupt: /Invalid NAL unit size|missing picture in access unit/,
  /**
   * A packet MPEG-TS marks as corrupt: its continuity counter jumped. Within a file that is lost
   * or foreign bytes; at an HLS segment's start it is a segment written on its own (ffmpeg's
   * `-f segment` restarts the counters), whose packets are whole: ffmpeg reads them as they are.
   */
  corruptPacket: /Packet corrupt|corrupt input packet/,
  /**
   * Timestamps that went back: after a reconnect, the source sent the file again from an earlier
   * point (it ignored Range), and ffmpeg would append it to what it already wrote.
   */
  timeWentBack: /DTS -?\d+ < -?\d+ out of order|Non-monotonous DTS|non monotonically increasing dts/i,
  /** Input lost though ffmpeg went on (it may still exit 0): a skipped segment, a read that failed. */
  lost: /Failed to open segment|Input\/output error/i,
  /** The sound asked for is not in the source: its map of the audio stream found none (ffmpeg then exits 1). */
  noSound: /^Stream map '[^']*:a:0' matches no streams/,
  /** M4A's copy met sound that is not AAC (m4aOutputArgs); ffmpeg names the codec it read. */
  notAac: /Codec '([^']+)' \(\d+\) is not supported by the bitstream filter 'aac_adtstoasc'/,
};

/** What the log reader knows of the run: the source's length when it says it, whether it is HLS, and the output. */
export interface FfmpegSource {
  durationSec: number | null;
  hls: boolean;
  output?: RemuxPlan["output"];
  /** A clip cut at a key frame: where it was asked to start, and where it ends (null: unknown); its length is known once ffmpeg says where it starts. */
  clip?: { startSec: number; endSec: number | null };
}

/** MP3 at 320 kbit/s CBR is 40 000 bytes a second: its length is its size over this. */
export const mp3BytesPerSec = 40_000;

/** How far the output's length may stray from the source's: 2 s, or 5 % of a long one. */
const durationSlackSec = (durationSec: number) => Math.max(2, durationSec * 0.05);

/** 502 source_not_streamable: the whole file exists, but not as a stream; retrying cannot help. */
function notStreamable(cause?: Error): ApiError {
  return new ApiError(
    "source_not_streamable",
    "This file cannot be streamed from its source: its index is at its end and the source's server does not serve parts of files (Range requests), so it can only be read whole, to disk. Retrying will not help.",
    { cause },
  );
}

/** 400: sound asked of a video that has none (as `requireMotion` of platforms/items.ts for a photo); no retry helps. */
export function silentVideo(cause?: Error): ApiError {
  return new ApiError(
    "invalid_parameter",
    "This video has no sound, so `audio` has nothing to give; leave `audio` out to download the video.",
    { cause },
  );
}

/** 400: `audio=m4a` of sound that is not AAC (`codec` as the source or ffmpeg names it); only a re-encode would make it. */
export function notAac(codec: string, cause?: Error): ApiError {
  return new ApiError(
    "format_not_available",
    `This post's sound is ${codec}, not AAC: \`audio=m4a\` copies AAC as it is and never re-encodes. Ask for \`audio=mp3\` (MP3 at 320 kbps) instead.`,
    { cause },
  );
}

const damaged = (cause: Error) =>
  upstreamFailed("The source sent damaged media (bytes that are not the file it announced); try again later.", {
    cause,
  });
const lengthDiffers = (outputSec: number, durationSec: number) =>
  upstreamFailed(
    `The file came out ${outputSec > durationSec ? "longer" : "shorter"} than its source (${
      outputSec.toFixed(1)
    } s of ${durationSec} s): the source did not send it whole and once; try again later.`,
  );

/**
 * The output's length held against the source's, when the source says it: `seen` is told how
 * far the output has come and says when it is already too long; `tooShort` is asked at the end.
 */
function lengthCheck(expectedSec: number | null) {
  let durationSec = expectedSec;
  let outputSec: number | null = null;
  const off = (sign: 1 | -1) =>
    durationSec !== null && outputSec !== null && sign * (outputSec - durationSec) > durationSlackSec(durationSec);
  return {
    seen(seconds: number | null): ApiError | undefined {
      outputSec = seconds ?? outputSec;
      return off(1) ? lengthDiffers(outputSec!, durationSec!) : undefined;
    },
    tooShort: () => off(-1),
    shortError: () => lengthDiffers(outputSec!, durationSec!),
    /** The length once it is known: a key-frame clip's when ffmpeg says where it starts. */
    expect(seconds: number) {
      durationSec = seconds;
    },
  };
}

/** The lines of the clip's witness (clipWitnessArgs): framecrc's header (`#tb 0: 1/12800`, ...) and its one packet. */
const clipLines = { header: /^#/, timeBase: /^#tb 0: (\d+)\/(\d+)/, packet: /^0,\s*-?\d+,\s*(-?\d+),/ };

/**
 * Where a key-frame clip really starts, from its witness's lines: the packet's time in the time
 * base before it. With `-copyts` that is the source's time; without it (HLS) ffmpeg counts from
 * the asked start.
 */
function clipStartReader(clip: FfmpegSource["clip"], copyts: boolean, onStart: (seconds: number) => void) {
  let timeBase: number | null = null;
  return (line: string): boolean => {
    if (clip === undefined || !clipLines.header.test(line) && !clipLines.packet.test(line)) return false;
    const base = clipLines.timeBase.exec(line);
    if (base) timeBase = Number(base[1]) / Number(base[2]);
    const packet = clipLines.packet.exec(line);
    if (packet && timeBase !== null) {
      const at = Number(packet[1]) * timeBase;
      onStart(Math.max(0, copyts ? at : clip.startSec + at));
    }
    return true;
  };
}

/**
 * Reads ffmpeg's log as it streams, every line of it (a sign of lost input may come first and be
 * followed by kilobytes of other errors), and its output (`readOutput`: how long the file is so
 * far, see ffmpegArgs), and judges the run from them: one reader per run, its fields spawnStream's
 * options. A sign that the output is already broken (damaged media, a part out of reach,
 * reconnects past `limits.maxReconnects`, timestamps that went back after a reconnect, output
 * longer than the source's length) ends ffmpeg at once; lost input from which ffmpeg went on, or
 * output shorter than the source, makes a clean exit a failure.
 */
export function readFfmpegLog(
  limits: Pick<FfmpegLimits, "maxReconnects">,
  source: FfmpegSource = { durationSec: null, hls: false },
): Required<Pick<SpawnStreamOptions, "classify" | "failedDespiteExit0" | "readLog" | "readOutput">> & {
  /** A key-frame clip's real start in seconds, once ffmpeg has said it (never, when the clip starts past the media's end). */
  clipStart: Promise<number>;
} {
  const { durationSec, hls, output = "mp4", clip } = source;
  let reconnects = 0;
  let sourceError = false;
  let lost = false;
  const length = lengthCheck(durationSec);
  const clock = output === "mp3" ? null : fragmentClock();
  let toldStart: (seconds: number) => void = () => {};
  const clipStart = new Promise<number>((resolve) => (toldStart = resolve));
  const clipLine = clipStartReader(clip, !hls, (seconds) => {
    if (clip?.endSec != null) length.expect(clip.endSec - seconds);
    toldStart(seconds);
  });
  return {
    clipStart,
    classify: (code, stderr) =>
      code === 0 && length.tooShort() ? length.shortError() : classifyFfmpegFailure(code, stderr),
    failedDespiteExit0: () => lost || length.tooShort(),
    readOutput(chunk) {
      if (clock === null) return undefined;
      clock.read(chunk);
      return length.seen(clock.seconds());
    },
    readLog(line) {
      if (clipLine(line)) return "omit";
      const progress = logSigns.progress.exec(line);
      if (progress) {
        const kilobytes = progress[1];
        const mp3Sec = output === "mp3" && kilobytes !== undefined ? (Number(kilobytes) * 1024) / mp3BytesPerSec : null;
        // Progress lines stay out of the log's excerpt: they would push ffmpeg's last words out of it.
        return length.seen(mp3Sec) ?? "omit";
      }
      const cause = new Error(line.trim().slice(0, 200));
      if (logSigns.reconnect.test(line)) {
        reconnects += 1;
        if (reconnects <= limits.maxReconnects) return "keep";
        return upstreamFailed(
          `The source broke off ${reconnects} times without delivering the file; try again later.`,
          { cause },
        );
      }
      if (logSigns.sourceError.test(line)) {
        sourceError = true;
        return "keep";
      }
      if (logSigns.partialFile.test(line)) {
        return sourceError
          ? upstreamFailed("The source broke off before the whole file was read; try again later.", { cause })
          : notStreamable(cause);
      }
      if (output !== "mp4" && logSigns.noSound.test(line)) return silentVideo(cause);
      const other = logSigns.notAac.exec(line);
      if (other) return notAac(other[1]!, cause);
      if (logSigns.corrupt.test(line)) return damaged(cause);
      if (logSigns.corruptPacket.test(line)) return hls && reconnects === 0 ? undefined : damaged(cause);
      if (logSigns.timeWentBack.test(line) && reconnects > 0) return damaged(cause);
      if (!logSigns.lost.test(line)) return undefined;
      lost = true;
      return "keep";
    },
  };
}

/** Classifies a failed ffmpeg run from its stderr. Source trouble is 502 or 404, never 500. */
export function classifyFfmpegFailure(exitCode: number | null, stderr: string): ApiError {
  const lastLine = stderr.trim().split(/\r?\n/).at(-1)?.trim() ?? "";
  const reason = (lastLine || (exitCode === null ? "killed" : `exit ${exitCode}`)).slice(0, 200);
  if (/Server returned 404|HTTP error 404/i.test(stderr)) {
    return new ApiError("not_found", "The media file is gone from the source; fetch the post again for fresh links.");
  }
  // As for yt-dlp (see classifyYtdlpFailure): ffmpeg's words go to the log, not to the caller.
  return upstreamFailed(
    `Fetching or converting the media failed (ffmpeg ${
      exitCode === null ? "was killed" : `exit ${exitCode}`
    }); try again later.`,
    {
      cause: new Error(reason),
    },
  );
}
