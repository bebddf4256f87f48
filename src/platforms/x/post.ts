// The tweet record seen through the platform-independent post record (docs/api.md, Post record).
import type { PostRecord, PostVideoVariant, TweetRecord, TweetVideoVariant } from "../records.ts";

export function tweetToPost(tweet: TweetRecord): PostRecord {
  const handlePath = tweet.authorScreenName ?? "i";
  return {
    platform: "X",
    id: tweet.id,
    url: `https://x.com/${handlePath}/status/${tweet.id}`,
    text: tweet.text,
    authorName: tweet.authorName,
    durationSec: tweet.durationSec,
    posterUrl: tweet.posterUrl,
    // A poster without MP4 variants is a video X only offers as an HLS stream: page mode remuxes it.
    needsServerProcessing: tweet.posterUrl !== null && tweet.videoVariants.length === 0,
    videoVariants: tweet.videoVariants.map(postVariant),
    imageUrls: tweet.imageUrls,
    media: tweet.media.map((item) => ({ ...item, videoVariants: item.videoVariants.map(postVariant), altText: null })),
    subtitles: [],
    card: null,
  };
}

function postVariant(variant: TweetVideoVariant): PostVideoVariant {
  return {
    qualityLabel: variant.qualityLabel,
    formatId: ytdlpFormatId(variant.bitrate),
    contentType: variant.contentType,
  };
}

/** yt-dlp names X's progressive MP4s `http-<kbps>` (kbps rounded down), or `http` when X gives no bitrate (GIFs). */
export function ytdlpFormatId(bitrate: number | null): string {
  return bitrate ? `http-${Math.floor(bitrate / 1000)}` : "http";
}
