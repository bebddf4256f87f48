// The records the API returns (docs/api.md, Records). Every field is always present;
// unknown values are null and lists are arrays (docs/api.md). These schemas also
// describe the records in the OpenAPI document.
import { z } from "zod";

export const platformIds = [
  "X",
  "INSTAGRAM",
  "YOUTUBE",
  "TIKTOK",
  "REDDIT",
  "FACEBOOK",
  "PINTEREST",
  "AMAZON",
  "VIMEO",
  "DAILYMOTION",
  "OTHER",
] as const;
export const PlatformId = z.enum(platformIds);
export type PlatformId = z.infer<typeof PlatformId>;

export const PostVideoVariant = z.object({
  qualityLabel: z.string().describe("`<height>p` when the height is known, else `audio` or the bitrate"),
  formatId: z.string().describe("yt-dlp format selector; pass it as `format` to /api/v1/download"),
  contentType: z.string().describe("Media type, for example video/mp4"),
});
export type PostVideoVariant = z.infer<typeof PostVideoVariant>;

export const PostRecord = z.object({
  platform: PlatformId,
  id: z.string(),
  url: z.string().describe("Canonical URL of the post"),
  text: z.string().nullable(),
  authorName: z.string().nullable(),
  durationSec: z.number().int().nullable(),
  posterUrl: z.string().nullable(),
  needsServerProcessing: z
    .boolean()
    .describe("True when the media can only be had through page mode of /api/v1/download"),
  videoVariants: z.array(PostVideoVariant),
  imageUrls: z.array(z.string()),
});
export type PostRecord = z.infer<typeof PostRecord>;

export const TweetVideoVariant = z.object({
  qualityLabel: z.string(),
  url: z.string().describe("Direct media URL; pass it to /api/v1/download (direct mode)"),
  contentType: z.string(),
  bitrate: z.number().int().nullable(),
});
export type TweetVideoVariant = z.infer<typeof TweetVideoVariant>;

export const TweetRecord = z.object({
  id: z.string(),
  text: z.string(),
  authorName: z.string().nullable(),
  authorScreenName: z.string().nullable(),
  authorAvatarUrl: z.string().nullable(),
  createdAt: z.string().nullable().describe("ISO 8601 UTC with milliseconds"),
  durationSec: z.number().int().nullable(),
  posterUrl: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  videoVariants: z.array(TweetVideoVariant),
  imageUrls: z.array(z.string()),
  isAnimatedGif: z.boolean(),
});
export type TweetRecord = z.infer<typeof TweetRecord>;
