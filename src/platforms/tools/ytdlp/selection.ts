// From a `format` selector to what ffmpeg reads. The selector picks formats from the page's
// description (in-process, format-selector.ts, or by yt-dlp itself: `-f <selector>` puts the
// chosen formats in `requested_formats`, or a single one at the top level). ffmpeg then reads
// those URLs directly, which starts ~0.8 s sooner than piping `yt-dlp -o -` into it
// (first byte ~0.09 s against ~0.85 s, measured by hand).
import { ApiError, upstreamFailed } from "../../../http/problem.ts";
import { notAac, type RemuxPlan, silentVideo } from "../../../media/ffmpeg.ts";
import { audioCodecOf, hasAudio, hasVideo, isFfmpegReadable, isHls, videoCodecOf } from "./formats.ts";
import { formatCookies, withoutCookieHeader } from "./format-cookies.ts";
import { mainEntry, type YtdlpFormat, type YtdlpInfo } from "./info.ts";

// DASH formats come in fragments that only yt-dlp can stitch, so each choice first looks among
// the formats ffmpeg can read; MP4 and M4A first, so that nothing has to be re-encoded.
const readable = "[protocol!*=dash]";
/** Best video with sound, MP4-compatible where possible. */
export const defaultVideoSelector =
  `bv*[ext=mp4]${readable}+ba[ext=m4a]${readable}/b[ext=mp4]${readable}/bv*${readable}+ba${readable}/b${readable}/bv*+ba/b`;
/** For `audio=mp3`: an audio-only format when there is one, else the best file with sound. */
export const audioSelector = `ba${readable}/b${readable}/ba/b`;
/** For `audio=m4a`: AAC sound first (planRemux refuses any other codec), else what `audio=mp3` takes. */
export const aacSelector =
  `ba[acodec^=mp4a]${readable}/ba[ext=m4a]${readable}/b[acodec^=mp4a]${readable}/${audioSelector}`;
const selectors = { mp4: defaultVideoSelector, mp3: audioSelector, m4a: aacSelector } as const;

export type OutputKind = RemuxPlan["output"];

export function selectorFor(format: string | null | undefined, output: OutputKind): string {
  const given = format?.trim();
  if (given) return given;
  return selectors[output];
}

/** The formats yt-dlp chose for the selector it was run with. */
export function chosenFormats(info: YtdlpInfo): YtdlpFormat[] {
  const entry = mainEntry(info);
  if (entry.requested_formats && entry.requested_formats.length > 0) return entry.requested_formats;
  return entry.url ? [entry] : [];
}

// Codecs that ffmpeg 5.1 refuses to put into MP4 ("Could not find tag for codec"), or only as
// an experiment; measured with VP8/Vorbis WebM. VP9, AV1 and Opus copy into MP4 fine.
const mp4VideoMisfits = new Set(["vp8", "theora"]);
const mp4AudioMisfits = new Set(["vorbis", "flac"]);

/**
 * What ffmpeg should read for output `output`, from the formats a selector chose.
 * Throws 400 `format_not_streamable` when the chosen format is one only yt-dlp can fetch.
 */
export function planRemux(chosen: readonly YtdlpFormat[], output: OutputKind): RemuxPlan {
  if (chosen.length === 0) {
    throw upstreamFailed("The source listed no media for this link; try again later.");
  }
  const unreadable = chosen.find((f) => !isFfmpegReadable(f));
  if (unreadable) {
    throw new ApiError(
      "format_not_streamable",
      `Format ${unreadable.format_id ?? "?"} (${
        unreadable.protocol ?? "unknown protocol"
      }) cannot be streamed; pick a formatId from /api/v1/post or leave \`format\` out.`,
    );
  }
  // Sources by role: a separate audio-only format wins the audio role over a combined file.
  const video = chosen.find(hasVideo) ?? null;
  const audio = chosen.find((f) => f !== video && hasAudio(f)) ?? (video && hasAudio(video) ? video : null) ??
    chosen[0]!;
  const soundOnly = output !== "mp4";
  const sources = soundOnly || video === null ? [audio] : [...new Set([video, audio])];
  // A format that says it has no sound has none to give; one that says nothing is tried (ffmpeg then tells).
  if (soundOnly && !hasAudio(audio)) throw silentVideo();
  const audioCodec = audioCodecOf(audio);
  if (output === "m4a") requireAac(audioCodec);
  return {
    output,
    inputs: sources.map((f) => ({
      url: f.url!,
      headers: withoutCookieHeader(f.http_headers),
      cookies: formatCookies(f),
      hls: isHls(f),
      sizeBytes: f.filesize ?? f.filesize_approx ?? undefined,
    })),
    videoInput: soundOnly || video === null ? null : sources.indexOf(video),
    audioInput: sources.indexOf(audio),
    transcodeVideo: video !== null && mp4VideoMisfits.has(videoCodecOf(video) ?? ""),
    transcodeAudio: mp4AudioMisfits.has(audioCodec ?? ""),
    adtsAudio: adtsFramed(audio, audioCodec),
  };
}

/**
 * Whether the sound is AAC in ADTS frames, as MPEG-TS (and so HLS) carries it: by its codec, or,
 * unnamed, as AAC, the sound such streams hold almost always. A named other codec (an MP3 or
 * Opus track of a playlist) is not, whatever its container: the filter refuses it.
 */
function adtsFramed(audio: YtdlpFormat, codec: string | null): boolean {
  return (isHls(audio) || audio.ext === "ts") && (codec === "aac" || codec === null) && hasAudio(audio);
}

/**
 * `audio=m4a` copies the sound as it is, so sound of a known codec other than AAC is 400, since
 * only re-encoding would make it. Sound whose codec the source does not name is ffmpeg's to read
 * (its M4A copy refuses any other codec: media/ffmpeg.ts `notAac`); its container says nothing
 * of it (an MPEG-TS or a WebM may hold AAC or not).
 */
function requireAac(codec: string | null): void {
  if (codec !== null && codec !== "aac") throw notAac(codec);
}
