// Maps `yt-dlp -J` output to the platform-independent post record (docs/api.md, Post record).
import { ApiError } from "../../../http/problem.ts";
import { nothingToDownload } from "../../post-errors.ts";
import type { PlatformId, PostMediaItem, PostRecord, PostVideoVariant } from "../../records.ts";
import {
  contentTypeOf,
  hasAudio,
  hasVideo,
  isAudioOnly,
  isFfmpegReadable,
  isImage,
  isStoryboard,
  videoCodecOf,
} from "./formats.ts";
import { entryFormats, postItems, type YtdlpEntry, type YtdlpFormat, type YtdlpInfo } from "./info.ts";
import { subtitlesOf } from "./subtitles.ts";

/** The record of yt-dlp's description; 404 no_media when no item has a file it can serve (requireServable). */
export function infoToPost(info: YtdlpInfo, platform: PlatformId, pageUrl: URL): PostRecord {
  const items = requireServable(info);
  const entry = items[0]!;
  const formats = mediaFormats(entry);
  return {
    platform,
    id: postId(entry, platform),
    url: entry.webpage_url ?? pageUrl.href,
    text: postText(entry),
    authorName: entry.uploader ?? entry.channel ?? entry.creator ?? null,
    durationSec: durationOf(entry),
    posterUrl: posterOf(entry),
    needsServerProcessing: true,
    videoVariants: variantFormats(formats).map(toVariant),
    imageUrls: imageUrls(info, formats),
    media: items.map(mediaItem),
    subtitles: subtitlesOf(entry),
    card: null,
  };
}

/**
 * The post's items, when one has a file to serve: a video or sound, or a picture. yt-dlp answers
 * some pages with none (`{}`, formats that are all storyboards or all DRM-encrypted): such a page
 * is 404 no_media, saying why, as an empty page is, never a video item that no download can serve.
 */
export function requireServable(info: YtdlpInfo): YtdlpEntry[] {
  const items = postItems(info);
  const servable = (entry: YtdlpEntry) => mediaFormats(entry).some((f) => isImage(f) || variantFormats([f]).length > 0);
  if (items.some(servable)) return items;
  const all = items.flatMap(entryFormats);
  if (all.some((f) => f.has_drm === true)) {
    return unservable(
      "Its video is encrypted (DRM) in every format the platform offers; this service cannot serve it.",
    );
  }
  if (all.length > 0 && all.every(isStoryboard)) {
    return unservable("The platform offers only preview images (storyboards) of this video, no file to serve.");
  }
  throw nothingToDownload();
}

const unservable = (detail: string): never => {
  throw new ApiError("no_media", detail);
};

/** The post's id as the platform names it, from its first item; a download's default file name is made of it. */
export function postId(first: YtdlpEntry, platform: PlatformId): string {
  // yt-dlp's X extractor puts the media id in `id` and the post id in `display_id`.
  return String((platform === "X" ? first.display_id : null) ?? first.id ?? first.display_id ?? "");
}

function mediaFormats(entry: YtdlpEntry): YtdlpFormat[] {
  return entryFormats(entry).filter((f) => !isStoryboard(f) && f.has_drm !== true);
}

function durationOf(entry: YtdlpEntry): number | null {
  return entry.duration != null && entry.duration > 0 ? Math.round(entry.duration) : null;
}

/**
 * An entry as an item: a photo when pictures are all it has, else a video. Page-mode files are
 * only had through page mode, so a video's `url` is null; download it with `index`.
 */
function mediaItem(entry: YtdlpEntry): PostMediaItem {
  const formats = mediaFormats(entry);
  const variants = variantFormats(formats);
  const image = formats.filter(isImage).at(-1);
  if (variants.length === 0 && image) {
    return {
      type: "photo",
      url: image.url!,
      posterUrl: null,
      width: image.width ?? null,
      height: image.height ?? null,
      durationSec: null,
      videoVariants: [],
      altText: null,
    };
  }
  const best = variants[0];
  return {
    type: "video",
    url: null,
    posterUrl: posterOf(entry),
    width: best?.width ?? entry.width ?? null,
    height: best?.height ?? entry.height ?? null,
    durationSec: durationOf(entry),
    videoVariants: variants.map(toVariant),
    altText: null,
  };
}

/**
 * The title, unless it is only a stand-in for the post text: some extractors title a post
 * "Video by <user>" or "<user> - <first words of the text>..." (a short-video platform's), and the
 * description then holds the whole text.
 */
function postText(entry: YtdlpEntry): string | null {
  const title = entry.title?.trim() || null;
  const description = entry.description?.trim() || null;
  if (!description) return title;
  if (!title || title === entry.id || title === entry.display_id || /^(video|post|reel) by /i.test(title)) {
    return description;
  }
  const withoutAuthor = entry.uploader && title.startsWith(`${entry.uploader} - `)
    ? title.slice(entry.uploader.length + 3)
    : title;
  const stem = withoutAuthor.replace(/(\.\.\.|…)$/, "").trim();
  return withoutAuthor !== title && description.startsWith(stem) ? description : title;
}

function posterOf(entry: YtdlpEntry): string | null {
  if (entry.thumbnail) return entry.thumbnail;
  const thumbnails = (entry.thumbnails ?? []).filter((t) => t.url !== "");
  const area = (t: (typeof thumbnails)[number]) => (t.width ?? 0) * (t.height ?? 0);
  // yt-dlp lists thumbnails worst first and ranks by preference, then by size.
  const best = thumbnails.reduce<(typeof thumbnails)[number] | null>((top, t) => {
    if (!top) return t;
    const byPreference = (t.preference ?? 0) - (top.preference ?? 0);
    return byPreference > 0 || (byPreference === 0 && area(t) >= area(top)) ? t : top;
  }, null);
  return best?.url ?? null;
}

/**
 * Among the formats of one height, the one page mode handles best: H.264 (MP4 plays
 * everywhere), then audio included (one input, no merge), then a plain file over HLS over
 * DASH, then bitrate, then yt-dlp's own order (worst first).
 */
function formatRank(format: YtdlpFormat, index: number): number[] {
  const codec = videoCodecOf(format);
  const codecRank = codec === "h264" || (codec === null && /^(mp4|m4v|mov)$/.test(format.ext ?? ""))
    ? 2
    : codec === "vp8" || codec === "theora"
    ? 0
    : 1;
  const protocolRank = !isFfmpegReadable(format) ? 0 : (format.protocol ?? "").startsWith("m3u8") ? 1 : 2;
  return [codecRank, hasAudio(format) ? 1 : 0, protocolRank, format.tbr ?? 0, index];
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * The selector that downloads this format with sound. A video-only format is merged with
 * the best audio, AAC first since it copies into MP4 as is; when there is no separate
 * audio at all the selector falls back to the video alone rather than failing.
 */
function variantSelector(format: YtdlpFormat): string {
  const id = format.format_id ?? "0";
  return hasAudio(format) ? id : `${id}+ba[ext=m4a]/${id}+ba/${id}`;
}

/**
 * The formats behind the variants: one per height, best first; when there is no video (an
 * audio track), every audio-only format, best first, each its codec's content type.
 */
function variantFormats(formats: YtdlpFormat[]): YtdlpFormat[] {
  const media = formats.filter((f) => f.url !== null && (hasVideo(f) || hasAudio(f)));
  const videos = media.filter(hasVideo);
  if (videos.length === 0) {
    // The bitrate first: sound has no height to tell its variants apart.
    const rank = (f: YtdlpFormat) => [f.tbr ?? 0, ...formatRank(f, formats.indexOf(f))];
    return media.filter(isAudioOnly).sort((a, b) => compareRanks(rank(b), rank(a)));
  }
  const byHeight = new Map<string, YtdlpFormat[]>();
  for (const format of videos) {
    // Formats of unknown height cannot be compared with each other, so each stays its own variant.
    const key = format.height ? `h${format.height}` : `id${format.format_id}`;
    byHeight.set(key, [...(byHeight.get(key) ?? []), format]);
  }
  const chosen = [...byHeight.values()].map((group) => bestOf(group, formats)!);
  return chosen.sort((a, b) => (b.height ?? 0) - (a.height ?? 0));
}

function toVariant(format: YtdlpFormat): PostVideoVariant {
  const label = hasVideo(format) ? qualityLabel(format) : "audio";
  return { qualityLabel: label, formatId: variantSelector(format), contentType: contentTypeOf(format) };
}

function bestOf(group: YtdlpFormat[], all: YtdlpFormat[]): YtdlpFormat | null {
  let best: YtdlpFormat | null = null;
  let bestRank: number[] = [];
  for (const format of group) {
    const rank = formatRank(format, all.indexOf(format));
    if (!best || compareRanks(rank, bestRank) > 0) [best, bestRank] = [format, rank];
  }
  return best;
}

function qualityLabel(format: YtdlpFormat): string {
  if (format.height) return `${format.height}p`;
  return format.tbr ? `${Math.round(format.tbr)}kbps` : "unknown";
}

/** Image posts: formats that are pictures, and the pictures of a gallery's entries. */
function imageUrls(info: YtdlpInfo, formats: YtdlpFormat[]): string[] {
  const fromEntries = (info.entries ?? []).flatMap((entry) =>
    entry ? entryFormats(entry).filter(isImage).slice(-1) : []
  );
  const images = [...formats.filter(isImage).slice(-1), ...fromEntries];
  return [...new Set(images.map((f) => f.url!))];
}
