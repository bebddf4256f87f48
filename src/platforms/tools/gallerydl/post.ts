// Maps gallery-dl's messages to the platform-independent post record (docs/api.md, Post record).
// Each extractor names its metadata its own way; the few fields a record needs are read from
// the names the extractors of the photo platforms (list.ts, reader `yt-dlp+gallery-dl`) use.
import type { PlatformId, PostMediaItem, PostRecord } from "../../records.ts";
import type { GalleryMetadata, GalleryOutput } from "./run.ts";

const photoExtensions = new Set(["jpg", "jpeg", "png", "webp", "heic", "heif", "avif", "bmp"]);
const videoExtensions = new Set(["mp4", "webm", "mov", "m4v", "mkv"]);
/** A file of sound alone (a slideshow's music), by its extension, with its media type. */
const soundTypes: Record<string, string> = {
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  aac: "audio/aac",
  ogg: "audio/ogg",
  opus: "audio/ogg",
};

const text = (
  value: unknown,
): string | null => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);
const size = (
  value: unknown,
): number | null => (typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null);
const field = (
  meta: GalleryMetadata | null | undefined,
  key: string,
): unknown => (meta === null || meta === undefined ? undefined : meta[key]);

/** The file's extension: the one gallery-dl gives it, else its URL's. */
const extensionOf = (url: string, meta: GalleryMetadata): string =>
  (text(meta.extension) ?? /\.(\w+)$/.exec(URL.parse(url)?.pathname ?? "")?.[1] ?? "").toLowerCase();

/** The file's kind: a sound's is `sound` (listed as a video of sound alone); null for subtitles and the like. */
function kindOf(url: string, meta: GalleryMetadata): PostMediaItem["type"] | "sound" | null {
  if (url.startsWith("ytdl:")) return "video";
  const extension = extensionOf(url, meta);
  if (extension === "gif") return "gif";
  if (photoExtensions.has(extension)) return "photo";
  if (Object.hasOwn(soundTypes, extension)) return "sound";
  return videoExtensions.has(extension) ? "video" : null;
}

/**
 * Width and height: gallery-dl's own (most extractors), else a gallery's
 * `media_metadata` entry of this file, or an image post's preview source.
 */
function dimensions(url: string, meta: GalleryMetadata): { width: number | null; height: number | null } {
  const width = size(meta.width);
  const height = size(meta.height);
  if (width !== null && height !== null) return { width, height };
  const name = URL.parse(url)?.pathname;
  const gallery = field(meta, "media_metadata");
  if (name && gallery && typeof gallery === "object") {
    for (
      const entry of Object.values(
        gallery as Record<string, { s?: { u?: string; gif?: string; x?: number; y?: number } }>,
      )
    ) {
      const source = entry?.s;
      const named = source?.u ?? source?.gif;
      if (named && URL.parse(named)?.pathname === name) return { width: size(source?.x), height: size(source?.y) };
    }
  }
  const preview = (field(meta, "preview") as
    | { images?: { source?: { url?: string; width?: number; height?: number } }[] }
    | undefined)?.images?.[0]?.source;
  if (preview && URL.parse(preview.url ?? "")?.pathname === name) {
    return { width: size(preview.width), height: size(preview.height) };
  }
  return { width, height };
}

/**
 * A sound as the records list one (as yt-dlp's sound-only record does): a video whose one variant is `audio`, its
 * file relayed as the host serves it; `format=audio` asks for that same file.
 */
function soundItem(url: string, meta: GalleryMetadata): PostMediaItem {
  return {
    type: "video",
    url,
    posterUrl: null,
    width: null,
    height: null,
    durationSec: durationOf(meta),
    videoVariants: [{ qualityLabel: "audio", formatId: "audio", contentType: soundTypes[extensionOf(url, meta)]! }],
    altText: null,
  };
}

const durationOf = (meta: GalleryMetadata): number | null =>
  typeof meta.duration === "number" && meta.duration > 0 ? Math.round(meta.duration) : null;

function mediaItem(url: string, meta: GalleryMetadata, type: PostMediaItem["type"] | "sound"): PostMediaItem {
  if (type === "sound") return soundItem(url, meta);
  const file = url.startsWith("ytdl:") ? null : url;
  const { width, height } = dimensions(url, meta);
  if (type !== "video") {
    return { type, url: file, posterUrl: null, width, height, durationSec: null, videoVariants: [], altText: null };
  }
  const duration = durationOf(meta);
  // Some extractors give a video's still as the post's picture of it.
  return {
    type,
    url: file,
    posterUrl: text(meta.display_url),
    width,
    height,
    durationSec: duration,
    videoVariants: [],
    altText: null,
  };
}

function authorOf(post: GalleryMetadata): string | null {
  const author = post.author;
  if (author && typeof author === "object") {
    const named = author as Record<string, unknown>;
    return text(named.nickname) ?? text(named.uniqueId) ?? text(named.name) ?? text(named.username);
  }
  return text(post.fullname) ?? text(post.username) ?? text(author) ?? text(post.user);
}

/** The record of a post gallery-dl read; its items are files the download operation relays as they are. */
export function galleryToPost(output: GalleryOutput, platform: PlatformId, pageUrl: URL): PostRecord {
  const post = output.posts[0] ?? output.files[0]?.metadata ?? {};
  const media = output.files.flatMap(({ url, metadata }) => {
    const type = kindOf(url, metadata);
    return type === null ? [] : [mediaItem(url, metadata, type)];
  });
  const permalink = text(post.post_url) ??
    (text(post.permalink)?.startsWith("/") ? new URL(String(post.permalink), pageUrl).href : null);
  // A sound item (the one with a variant) is no video: a slideshow, a photo post, has no length or poster of one.
  const firstVideo = media.find((item) => item.type === "video" && item.videoVariants.length === 0);
  return {
    platform,
    id: String(text(post.post_shortcode) ?? text(post.id) ?? text(post.post_id) ?? size(post.id) ?? ""),
    url: permalink ?? pageUrl.href,
    // description, or desc, or the title where the post's body is often empty.
    text: text(post.description) ?? text(post.desc) ?? text(post.title) ?? text(post.selftext),
    authorName: authorOf(post),
    durationSec: firstVideo?.durationSec ?? null,
    posterUrl: firstVideo?.posterUrl ?? media.find((item) => item.type !== "video")?.url ?? null,
    needsServerProcessing: media.some((item) => item.url === null),
    videoVariants: [],
    imageUrls: media.flatMap((item) => (item.type === "photo" && item.url !== null ? [item.url] : [])),
    media,
    subtitles: [],
    card: null,
  };
}
