// A job's expansion of a link yt-dlp reads (platforms/source.ts, Expands): which links may stand
// for many posts (each platform's `ytdlpPlaylist`: a post's own link is not asked, so a job of many
// posts runs yt-dlp once per post, not twice), and the posts of yt-dlp's flat listing of a playlist, channel
// or feed, in its order, with the title a feed gives each of its entries.
import { z } from "zod";
import { platformIds } from "../../records.ts";
import { rowOf } from "../../table.ts";
import type { Expansion, Link } from "../../source.ts";
import type { YtdlpInfo } from "./info.ts";

/**
 * Whether yt-dlp should be asked what the link stands for: a link of its platform's `ytdlpPlaylist`,
 * and any link of a host the operator added or an extractor claims (SUPPORTED_SITES=all), whose
 * pages may each be one yt-dlp reads as a playlist (a feed, a gallery of videos).
 */
export function mayStandForMany(link: Link): boolean {
  if (link.platform === "OTHER" || !(platformIds as readonly string[]).includes(link.platform)) return true;
  return rowOf(link.platform)?.ytdlpPlaylist?.(link.url) ?? false;
}

/**
 * An entry of a flat listing: its link, where yt-dlp gives one, and its title. A `url_transparent`
 * entry's fields (a feed's item) stand over those of the page it links to; a `url` entry's do not.
 */
const FlatEntry = z.looseObject({
  _type: z.string().nullish().catch(null),
  url: z.string().nullish().catch(null),
  webpage_url: z.string().nullish().catch(null),
  title: z.string().nullish().catch(null),
});

/**
 * The range of a listing for a job that may hold `limit` more posts: one entry past them, whose
 * presence alone says the link has more posts than the job takes.
 */
export const listingRange = (limit: number): string => `1:${limit + 1}`;

/**
 * The posts of a flat listing (of `listingRange(limit)`), at most `limit`, in its order; null when
 * the link is one post. Incomplete when an entry has no link, or when the listing went past `limit`.
 */
export function expansionOf(info: YtdlpInfo, limit: number): Expansion | null {
  if (info._type !== "playlist") return null;
  const posts: URL[] = [];
  const titles: (string | null)[] = [];
  let unlinked = 0;
  for (const entry of info.entries ?? []) {
    const parsed = FlatEntry.safeParse(entry);
    const link = parsed.success ? httpLink(parsed.data.url) ?? httpLink(parsed.data.webpage_url) : null;
    if (link === null) unlinked += 1;
    else {
      posts.push(link);
      titles.push(parsed.data?._type === "url_transparent" ? parsed.data.title?.trim() || null : null);
    }
  }
  const why = [
    ...(posts.length > limit ? [`it has more posts than the ${limit} a job may hold`] : []),
    ...(unlinked > 0 ? [`${unlinked} of its entries have no link of their own`] : []),
  ];
  return {
    posts: posts.slice(0, limit),
    complete: why.length === 0,
    incomplete: why.join("; ") || null,
    ...(titles.some((title) => title !== null) ? { titles: titles.slice(0, limit) } : {}),
  };
}

/**
 * yt-dlp's own fragment, which it adds to a link to carry data to its next extractor (a feed
 * entry's guid): no link of the platform's, and nothing a caller should see.
 */
const SMUGGLED = /^#__youtubedl_smuggle=/;

function httpLink(text: string | null | undefined): URL | null {
  if (!text || !URL.canParse(text)) return null;
  const url = new URL(text);
  if (SMUGGLED.test(url.hash)) url.hash = "";
  return url.protocol === "https:" || url.protocol === "http:" ? url : null;
}
