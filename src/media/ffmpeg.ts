// ffmpeg argument lists for page mode: read the media URLs directly (ffmpeg seeks with Range,
// which a pipe cannot) and write fragmented MP4 or MP3 to stdout. Pure; see remux.ts for
// running them.
import { ApiError, upstreamFailed } from "../http/problem.ts";
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
  output: "mp4" | "mp3";
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
}

export interface FfmpegLimits {
  /** Give up when the source sends nothing for this long; ffmpeg waits forever by default. */
  readTimeoutMs: number;
  /**
   * Longest wait between reconnect attempts (they wait 0, 1, 2, 4, ... s). ffmpeg's default
   * of 120 s keeps a broken download hanging for minutes, deaf to SIGTERM.
   */
  reconnectDelayMaxSec: number;
}

export const defaultFfmpegLimits: FfmpegLimits = { readTimeoutMs: 30_000, reconnectDelayMaxSec: 4 };

/** What a download is sent as. */
export const outputTypes = {
  mp4: { contentType: "video/mp4", extension: "mp4" },
  mp3: { contentType: "audio/mpeg", extension: "mp3" },
} as const;

// Keeps a crafted source from making ffmpeg read local files or other protocols.
const protocolWhitelist = "http,https,tls,tcp,crypto,httpproxy";
// The containers a source may be read as. Not hls, dash or concat, which open further links
// themselves: a "media file" answered with a playlist would otherwise be read as one, unchecked.
// An HLS input is the gate's checked copy of its playlist (hls-playlists.ts), read as HLS.
const mediaDemuxers = "mov,matroska,mp3,aac,ogg,flv,mpegts,wav,flac,webvtt,srt,ass";
const inputKindArgs = (input: FfmpegInput) => (input.hls ? ["-format_whitelist", `hls,${mediaDemuxers}`, "-f", "hls"] : ["-format_whitelist", mediaDemuxers]);

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== "user-agent")
    .map(([name, value]) => `${name}: ${value.replace(/[\r\n]+/g, " ")}\r\n`)
    .join("");
}

function inputArgs(input: FfmpegInput, limits: FfmpegLimits, proxy: string | undefined): string[] {
  const userAgent = Object.entries(input.headers).find(([name]) => name.toLowerCase() === "user-agent")?.[1];
  const headers = headerLines(input.headers);
  return [
    "-protocol_whitelist", protocolWhitelist,
    ...inputKindArgs(input),
    // A dropped connection otherwise ends the input early with exit 0: a short file that looks complete.
    "-reconnect", "1", "-reconnect_streamed", "1", "-reconnect_on_network_error", "1",
    "-reconnect_delay_max", String(limits.reconnectDelayMaxSec),
    "-rw_timeout", String(limits.readTimeoutMs * 1000),
    ...(userAgent ? ["-user_agent", userAgent.replace(/[\r\n]+/g, " ")] : []),
    ...(headers ? ["-headers", headers] : []),
    // The egress gate: https goes through it by CONNECT, and HLS segments and redirects inherit it.
    ...(proxy ? ["-http_proxy", proxy] : []),
    ...(input.cookies?.length ? ["-cookies", input.cookies.join("\n")] : []),
    "-i", input.url,
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
    "-movflags", "frag_keyframe+empty_moov+default_base_moof",
    "-f", "mp4",
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
 * With files as inputs, `-xerror` makes a failed read (a connection that broke off for good)
 * exit 1 instead of 0. With HLS it cannot be used: ffmpeg 5.1's HLS reader repeats the first
 * timestamp of an audio-only MPEG-TS playlist, which ffmpeg quietly fixes, but which
 * `-xerror` turns into "Non-monotonous DTS ... aborting" (measured). HLS runs therefore log
 * warnings, and `failedDespiteExit0` reads them.
 */
export function ffmpegArgs(plan: RemuxPlan, limits: FfmpegLimits, proxy?: string): string[] {
  const hls = plan.inputs.some((input) => input.hls);
  return [
    "-nostdin", "-hide_banner",
    ...(hls ? ["-loglevel", "warning"] : ["-loglevel", "error", "-xerror"]),
    ...plan.inputs.flatMap((input) => inputArgs(input, limits, proxy)),
    ...(plan.subtitles && plan.output === "mp4" ? inputArgs(plan.subtitles.input, limits, proxy) : []),
    ...(plan.output === "mp3" ? mp3OutputArgs(plan) : mp4OutputArgs(plan)),
    "pipe:1",
  ];
}

/**
 * True when ffmpeg exited 0 but its log shows that input went missing: a segment it skipped
 * or a read that failed for good. The output is then short and must not pass as complete.
 */
export function failedDespiteExit0(stderr: string): boolean {
  return /Failed to open segment|Input\/output error|partial file|Server returned [45]\d\d/i.test(stderr);
}

/** Classifies a failed ffmpeg run from its stderr. Source trouble is 502 or 404, never 500. */
export function classifyFfmpegFailure(exitCode: number | null, stderr: string): ApiError {
  const lastLine = stderr.trim().split(/\r?\n/).at(-1)?.trim() ?? "";
  const reason = (lastLine || (exitCode === null ? "killed" : `exit ${exitCode}`)).slice(0, 200);
  if (/Server returned 404|HTTP error 404/i.test(stderr)) {
    return new ApiError(404, "not_found", "The media file is gone from the source; fetch the post again for fresh links.");
  }
  // As for yt-dlp (see classifyYtdlpFailure): ffmpeg's words go to the log, not to the caller.
  return upstreamFailed(`Fetching or converting the media failed (ffmpeg ${exitCode === null ? "was killed" : `exit ${exitCode}`}); try again later.`, {
    cause: new Error(reason),
  });
}
