// A loose schema for `yt-dlp -J` output. yt-dlp's shapes differ by extractor and version, so
// every field is optional and a field of an unexpected type reads as null instead of failing
// the whole document; only the fields this service reads are declared.
import { z } from "zod";

const optional = <T extends z.ZodType>(schema: T) => schema.nullish().catch(null);
const text = optional(z.string());
const number = optional(z.number());
// yt-dlp writes some ids as numbers (some extractors' `id`).
const identifier = optional(z.union([z.string(), z.number()]).transform(String));
const headers = optional(z.record(z.string(), z.string()));

export const YtdlpFormat = z.looseObject({
  format_id: identifier,
  format_note: text,
  url: text,
  manifest_url: text,
  ext: text,
  protocol: text,
  vcodec: text,
  acodec: text,
  video_ext: text,
  audio_ext: text,
  width: number,
  height: number,
  tbr: number,
  abr: number,
  filesize: number,
  filesize_approx: number,
  has_drm: optional(z.boolean()),
  fragments: optional(z.array(z.unknown())),
  http_headers: headers,
  /** The cookies the URL needs, in Set-Cookie syntax (yt-dlp 2023.11 and later). */
  cookies: text,
});
export type YtdlpFormat = z.infer<typeof YtdlpFormat>;

const Thumbnail = z.looseObject({
  url: z.string(),
  width: number,
  height: number,
  preference: number,
});

export const SubtitleTrack = z.looseObject({ url: text, ext: text, name: text, http_headers: headers, protocol: text });
export type SubtitleTrack = z.infer<typeof SubtitleTrack>;
/** Tracks by language code; each language lists the same text in several formats. */
const subtitleTracks = optional(z.record(z.string(), z.array(SubtitleTrack.catch({}))));

const entryShape = {
  ...YtdlpFormat.shape,
  _type: text,
  id: identifier,
  display_id: identifier,
  title: text,
  description: text,
  uploader: text,
  channel: text,
  creator: text,
  duration: number,
  thumbnail: text,
  thumbnails: optional(z.array(Thumbnail.catch({ url: "" }))),
  webpage_url: text,
  formats: optional(z.array(YtdlpFormat)),
  requested_formats: optional(z.array(YtdlpFormat)),
  subtitles: subtitleTracks,
  automatic_captions: subtitleTracks,
};

export const YtdlpEntry = z.looseObject(entryShape);
export type YtdlpEntry = z.infer<typeof YtdlpEntry>;

export const YtdlpInfo = z.looseObject({
  ...entryShape,
  entries: optional(z.array(YtdlpEntry.nullable())),
});
export type YtdlpInfo = z.infer<typeof YtdlpInfo>;

/**
 * The items of a post. A page with several media (a carousel, two videos) comes back as a
 * playlist even with `--no-playlist`; each entry is an item, and fields an entry lacks
 * (uploader, title) are taken from the playlist. Anything else is one item. A playlist of no
 * entries has none: it is not an item itself (extractInfo refuses it, see isEmptyPlaylist).
 */
export function postItems(info: YtdlpInfo): YtdlpEntry[] {
  if (info._type !== "playlist") return [info];
  return entriesOf(info).map((entry) => {
    const merged: Record<string, unknown> = { ...info, entries: undefined };
    for (const [key, value] of Object.entries(entry)) {
      if (value !== null && value !== undefined) merged[key] = value;
    }
    return merged as YtdlpEntry;
  });
}

/**
 * Item `item` (1-based) as yt-dlp described it, without the playlist's fields: a description
 * `--load-info-json` can choose formats from. (Given a whole playlist, yt-dlp drops its entries
 * on loading and fetches the page again.) Undefined past the last item.
 */
export function itemDescription(info: YtdlpInfo, item: number): YtdlpEntry | undefined {
  if (info._type !== "playlist") return item === 1 ? info : undefined;
  return entriesOf(info)[item - 1];
}

/** A playlist with no entries (an RSS feed with no items, a page that lists nothing). */
export function isEmptyPlaylist(info: YtdlpInfo): boolean {
  return info._type === "playlist" && entriesOf(info).length === 0;
}

function entriesOf(info: YtdlpInfo): YtdlpEntry[] {
  return info._type === "playlist" ? (info.entries ?? []).filter((entry) => entry !== null) : [];
}

/** The post's main media, which a request without `index` is about: its first item. */
export function mainEntry(info: YtdlpInfo): YtdlpEntry {
  return postItems(info)[0]!;
}

/**
 * The formats of an entry. An entry without `formats[]` (og:video, a player card, direct
 * links) describes its one format at the top level, with format id `0`.
 */
export function entryFormats(entry: YtdlpEntry): YtdlpFormat[] {
  if (entry.formats && entry.formats.length > 0) return entry.formats;
  if (!entry.url) return [];
  return [{ ...entry, format_id: entry.format_id ?? "0" }];
}
