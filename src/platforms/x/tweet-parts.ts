// What the syndication and GraphQL answers have in common, and the one pure function that turns
// it into a TweetRecord. Both upstreams describe media in X's v1.1 "extended entities" form.
import { z } from "zod";
import type { TweetMediaItem, TweetRecord, TweetVideoVariant } from "../records.ts";

export const MediaVariant = z.object({
  bitrate: z.number().optional(),
  content_type: z.string(),
  url: z.string(),
});

export const Media = z.object({
  type: z.string(),
  media_url_https: z.string(),
  original_info: z.object({ width: z.number(), height: z.number() }).optional(),
  video_info: z
    .object({
      duration_millis: z.number().optional(),
      variants: z.array(MediaVariant),
    })
    .optional(),
});
export type Media = z.infer<typeof Media>;

export const UrlEntity = z.object({ url: z.string(), expanded_url: z.string().optional() });
export type UrlEntity = z.infer<typeof UrlEntity>;

export const Entities = z.object({
  urls: z.array(UrlEntity).optional(),
  media: z.array(z.object({ url: z.string() })).optional(),
});

export const TextRange = z.tuple([z.number(), z.number()]);

/** One upstream tweet, reduced to what the record needs. */
export interface TweetParts {
  id: string;
  /** HTML-escaped, with t.co links, as X sends it. */
  rawText: string;
  /** Code-point range of rawText that is the visible text (reply mentions and media links lie outside). */
  displayTextRange: readonly [number, number] | null;
  /** t.co links in the text and where they lead. */
  urls: readonly UrlEntity[];
  /** t.co links that only point at the attached media. */
  mediaLinks: readonly string[];
  createdAt: Date | null;
  authorName: string | null;
  authorScreenName: string | null;
  authorAvatarUrl: string | null;
  media: readonly Media[];
  /** Title of an X Article; its post text is a bare link that says nothing. */
  articleTitle: string | null;
}

/**
 * A tweet as the X client keeps it: its record, and each item's HLS master playlist in `media`'s order (null for an
 * item without one), where X carries a video's captions (x/captions.ts). The record is the API's tweet record, which
 * names no playlist.
 */
export interface XTweet {
  record: TweetRecord;
  playlists: (string | null)[];
}

export function partsToXTweet(parts: TweetParts): XTweet {
  const items = parts.media.flatMap((m) => {
    const item = mediaItemOf(m);
    return item === null ? [] : [{ item, playlist: hlsPlaylist(m) }];
  });
  return {
    record: tweetRecord(parts, items.map(({ item }) => item)),
    playlists: items.map(({ playlist }) => playlist),
  };
}

export const partsToTweetRecord = (parts: TweetParts): TweetRecord => partsToXTweet(parts).record;

/** The record of a tweet whose items are `media`. */
function tweetRecord(parts: TweetParts, media: TweetMediaItem[]): TweetRecord {
  // The record's own video fields describe the first video or GIF, as they did before `media`.
  const video = media.find((item) => item.type !== "photo");
  return {
    id: parts.id,
    text: parts.articleTitle ?? visibleText(parts),
    authorName: parts.authorName,
    authorScreenName: parts.authorScreenName,
    authorAvatarUrl: parts.authorAvatarUrl && largeAvatarUrl(parts.authorAvatarUrl),
    createdAt: parts.createdAt && !Number.isNaN(parts.createdAt.getTime()) ? parts.createdAt.toISOString() : null,
    durationSec: video?.durationSec ?? null,
    posterUrl: video?.posterUrl ?? null,
    width: video?.width ?? null,
    height: video?.height ?? null,
    videoVariants: video?.videoVariants ?? [],
    imageUrls: media.flatMap((item) => (item.type === "photo" && item.url !== null ? [item.url] : [])),
    isAnimatedGif: video?.type === "gif",
    media,
  };
}

/** The media's HLS master playlist, the variant the record's `videoVariants` leaves out; null without one. */
const hlsPlaylist = (media: Media): string | null =>
  media.video_info?.variants.find((v) => v.content_type === "application/x-mpegURL")?.url ?? null;

/** One photo, video or GIF; null for a kind of media X may add that this service does not know. */
function mediaItemOf(media: Media): TweetMediaItem | null {
  if (media.type === "photo") {
    const size = dimensionsOf(media);
    const url = fullSizeImageUrl(media.media_url_https);
    return {
      type: "photo",
      url,
      posterUrl: null,
      width: size?.width ?? null,
      height: size?.height ?? null,
      durationSec: null,
      videoVariants: [],
    };
  }
  if (media.type !== "video" && media.type !== "animated_gif") return null;
  const variants = videoVariants(media);
  const size = (variants[0] && dimensionsFromUrl(variants[0].url)) ?? dimensionsOf(media);
  const durationMs = media.video_info?.duration_millis;
  return {
    type: media.type === "video" ? "video" : "gif",
    url: variants[0]?.url ?? null,
    posterUrl: media.media_url_https,
    width: size?.width ?? null,
    height: size?.height ?? null,
    // A GIF has no duration upstream; 0 would claim an empty video.
    durationSec: durationMs ? Math.round(durationMs / 1000) : null,
    videoVariants: variants,
  };
}

/**
 * The MP4 variants, best (highest bitrate) first. The HLS playlist is left out: it is not a file
 * that direct mode can relay, and its qualities are the same as the MP4 ones.
 */
function videoVariants(media: Media): TweetVideoVariant[] {
  const mp4s = (media.video_info?.variants ?? []).filter((v) => v.content_type === "video/mp4");
  return mp4s
    .map((v) => {
      const height = dimensionsFromUrl(v.url)?.height ?? (mp4s.length === 1 ? media.original_info?.height : undefined);
      // X sends bitrate 0 for GIFs, which means "not measured", not "zero bits".
      const bitrate = v.bitrate ? Math.round(v.bitrate) : null;
      const qualityLabel = height ? `${height}p` : bitrate ? `${Math.floor(bitrate / 1000)}kbps` : "mp4";
      return { qualityLabel, url: v.url, contentType: v.content_type, bitrate };
    })
    .sort((a, b) => (b.bitrate ?? 0) - (a.bitrate ?? 0));
}

interface Size {
  width: number;
  height: number;
}

/** video.twimg.com puts each variant's size in its path: `/vid/1280x720/` or `/vid/avc1/1280x720/`. */
export function dimensionsFromUrl(url: string): Size | null {
  const match = /\/vid\/(?:[a-z0-9]+\/)?(\d+)x(\d+)\//.exec(url);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}

function dimensionsOf(media: Media): Size | null {
  return media.original_info ? { width: media.original_info.width, height: media.original_info.height } : null;
}

/** pbs.twimg.com serves the uploaded original for `name=orig`; the bare URL is a resized copy. */
export function fullSizeImageUrl(mediaUrl: string): string {
  const url = new URL(mediaUrl);
  url.searchParams.set("name", "orig");
  return url.toString();
}

/** Avatars come as 48x48 `_normal` files; `_400x400` is the largest square X serves for every avatar. */
function largeAvatarUrl(avatarUrl: string): string {
  return avatarUrl.replace(/_normal(\.\w+)$/, "_400x400$1");
}

/** The text a reader sees: reply mentions and media links cut off, other t.co links expanded. */
export function visibleText(parts: Pick<TweetParts, "rawText" | "displayTextRange" | "urls" | "mediaLinks">): string {
  // Ranges count code points, and X counts them on the escaped text.
  const codePoints = Array.from(parts.rawText);
  const [start, end] = parts.displayTextRange ?? [0, codePoints.length];
  let text = codePoints.slice(start, end).join("");
  for (const link of parts.urls) {
    if (link.expanded_url) text = text.replaceAll(link.url, link.expanded_url);
  }
  // Posts from before 2016 count the media link as part of the visible text.
  for (const link of parts.mediaLinks) text = text.replaceAll(link, "");
  return decodeHtmlEntities(text).trim();
}

function decodeHtmlEntities(text: string): string {
  // X escapes only these three in post text.
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}
