// X's APIs as a source (platforms/source.ts): the post from the tweet client, and a download
// relayed from X's CDN: the best MP4 variant (or the one `format` names), a photo at full size,
// or the item `index` names. A video X offers only as HLS has no file to relay: it is handed to
// yt-dlp, which fetches the post's videos itself. A video's captions are read from its HLS master
// playlist (captions.ts) with the client to X's video host.
import { ApiError } from "../../http/problem.ts";
import { assertDirectUrl } from "../../http/direct-hosts.ts";
import { requireItem, requireMotion, requireNoSubtitles, upstreamUrl } from "../items.ts";
import type { TweetMediaItem, TweetRecord } from "../records.ts";
import type { Ask, Source, Wanted } from "../source.ts";
import type { Outbound } from "../../net/outbound.ts";
import { xCaptions } from "./captions.ts";
import { tweetToPost, ytdlpFormatId } from "./post.ts";
import type { TweetClient } from "./client.ts";
import { statusOf } from "./url.ts";

/**
 * X's source; `pages` (yt-dlp's), asked through `ask`, takes the videos X offers only as HLS. `videoHost` is its
 * client to X's video host, which a video's captions are read through.
 */
export function xReader(tweets: TweetClient, pages: Source, ask: Ask, videoHost: Outbound): Source {
  const captions = xCaptions(videoHost);
  return {
    tools: () => [],
    extracts: false,
    // The item a media viewer's link names, else the first video; a post without media has no captions.
    async captions(link, lang, signal) {
      const status = statusOf(link);
      const { record, playlists } = await tweets.getTweetPlaylists(status.id);
      const playlist = record.media.length === 0 ? null : playlists[tweetItemIndex(record, status.item)];
      return captions(playlist ?? null, lang, signal);
    },
    async describe(link, options = {}) {
      return tweetToPost(await tweets.getTweet(statusOf(link).id, { uncached: options.uncached }));
    },
    async plan(link, wanted, asker) {
      requireNoSubtitles(wanted);
      const status = statusOf(link);
      const tweet = await tweets.getTweet(status.id);
      // The item the media viewer's link names is the one sent, unless `index` names another.
      const index = wanted.index ?? status.item;
      const item = tweet.media[tweetItemIndex(tweet, index)]!;
      if (item.type === "photo") requireMotion(item.type, wanted);
      const name = wanted.filename ?? (index === null ? `x_${tweet.id}` : `x_${tweet.id}_${index}`);
      const file = itemUrl(item, wanted.format);
      if (file !== null) {
        return { kind: "relay", url: file, allowed: assertDirectUrl, name, durationSec: item.durationSec };
      }
      // The post's own link: yt-dlp reads a media viewer's `/video/<n>` as that video alone, which `index` counts in.
      const post = { ...link, url: new URL(`https://x.com/i/status/${tweet.id}`) };
      return ask(pages, post, { ...wanted, filename: name, index: amongVideos(tweet, index) }, asker);
    },
  };
}

/** yt-dlp lists a post's videos and GIFs but not its photos, so an item is counted among those. */
function amongVideos(tweet: TweetRecord, index: Wanted["index"]): number | null {
  return index === null ? null : tweet.media.slice(0, index).filter((m) => m.type !== "photo").length;
}

/**
 * 0-based: the item `index` names; by default the first video or GIF (what the record's own video
 * fields describe), else the first photo. A post with neither is 404.
 */
function tweetItemIndex(tweet: TweetRecord, index: number | null): number {
  if (index !== null) {
    requireItem(index, tweet.media.length);
    return index - 1;
  }
  if (tweet.media.length === 0) throw new ApiError("no_media", "This post has no video or image to download.");
  return Math.max(0, tweet.media.findIndex((m) => m.type !== "photo"));
}

/** The file to relay: the variant `format` names (qualityLabel or formatId), else the item's own; null when only yt-dlp has it. */
function itemUrl(item: TweetMediaItem, format: string | null): URL | null {
  if (format !== null) {
    const variant = item.videoVariants.find((v) => v.qualityLabel === format || ytdlpFormatId(v.bitrate) === format);
    if (!variant) {
      const offered = item.videoVariants.map((v) => `${v.qualityLabel} (${ytdlpFormatId(v.bitrate)})`).join(", ") ||
        "none";
      throw new ApiError("format_not_available", `This ${item.type} has no variant ${format}; it offers: ${offered}.`);
    }
    return upstreamUrl(variant.url);
  }
  return item.url === null ? null : upstreamUrl(item.url);
}
