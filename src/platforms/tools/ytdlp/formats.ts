// Facts about single yt-dlp formats, shared by the post mapper and the download selection.
import type { YtdlpFormat } from "./info.ts";

const imageExts = new Set(["jpg", "jpeg", "png", "webp", "gif", "avif", "heic"]);

const contentTypes: Record<string, string> = {
  mp4: "video/mp4",
  m4v: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
  mkv: "video/x-matroska",
  "3gp": "video/3gpp",
  flv: "video/x-flv",
  ts: "video/mp2t",
  m4a: "audio/mp4",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  opus: "audio/ogg",
  wav: "audio/wav",
  aac: "audio/aac",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
};

export function contentTypeOf(format: YtdlpFormat): string {
  const ext = format.ext?.toLowerCase() ?? "";
  const type = contentTypes[ext];
  if (type === undefined) return "application/octet-stream";
  // yt-dlp names the container ext of audio-only HLS "mp4"; the file still holds only sound.
  return isAudioOnly(format) ? type.replace(/^video\//, "audio/") : type;
}

export function isStoryboard(format: YtdlpFormat): boolean {
  return format.ext === "mhtml" || /^sb\d+$/.test(format.format_id ?? "") || format.format_note === "storyboard";
}

export function isImage(format: YtdlpFormat): boolean {
  return imageExts.has(format.ext?.toLowerCase() ?? "") && (format.vcodec ?? "none") === "none";
}

/** yt-dlp writes "none" for a stream a format certainly lacks; null means unknown. */
export function hasVideo(format: YtdlpFormat): boolean {
  return format.vcodec !== "none" && !isImage(format);
}

export function hasAudio(format: YtdlpFormat): boolean {
  return format.acodec !== "none" && !isImage(format);
}

export function isAudioOnly(format: YtdlpFormat): boolean {
  return !hasVideo(format) && hasAudio(format);
}

/** Media ffmpeg can read from `url` itself: plain HTTP files and HLS playlists. */
export function isFfmpegReadable(format: YtdlpFormat): boolean {
  const protocol = format.protocol ?? "https";
  return /^(https?|m3u8(_native)?)$/.test(protocol) && /^https?:\/\//i.test(format.url ?? "");
}

export function isHls(format: YtdlpFormat): boolean {
  return (format.protocol ?? "").startsWith("m3u8") || /\.m3u8(\?|$)/i.test(format.url ?? "");
}

const videoCodecFamilies: [RegExp, string][] = [
  [/^(avc|h264)/i, "h264"],
  [/^(hev|hvc|h265)/i, "hevc"],
  [/^(vp0?9)/i, "vp9"],
  [/^(av01|av1)/i, "av1"],
  [/^(vp0?8)/i, "vp8"],
  [/^theora/i, "theora"],
  [/^(mp4v|mpeg4)/i, "mpeg4"],
];
const audioCodecFamilies: [RegExp, string][] = [
  [/^(mp3|mp4a\.6b|mp4a\.40\.34)/i, "mp3"],
  [/^(mp4a|aac)/i, "aac"],
  [/^opus/i, "opus"],
  [/^vorbis/i, "vorbis"],
  [/^(ac-?3|ec-?3)/i, "ac3"],
  [/^flac/i, "flac"],
];

function family(codec: string | null | undefined, table: [RegExp, string][]): string | null {
  if (!codec || codec === "none") return null;
  return table.find(([pattern]) => pattern.test(codec))?.[1] ?? null;
}

/** Codec family of the video stream (h264, vp9, ...), or null when unknown or absent. */
export const videoCodecOf = (format: YtdlpFormat) => family(format.vcodec, videoCodecFamilies);
/** Codec family of the audio stream (aac, opus, ...), or null when unknown or absent. */
export const audioCodecOf = (format: YtdlpFormat) => family(format.acodec, audioCodecFamilies);
