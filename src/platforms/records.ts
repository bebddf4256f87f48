// The records the API returns (docs/api.md, Records). Every field is always present;
// unknown values are null and lists are arrays (docs/api.md). These schemas also
// describe the records in the OpenAPI document.
import { z } from "zod";
import { platformList } from "./list.ts";

/** The list's platforms' ids, and OTHER. */
export const platformIds = [...platformList.map(({ id }) => id), "OTHER"] as const;
/** A platform of the table, or OTHER (a host the operator added: EXTRA_PAGE_HOSTS). */
export const ListedPlatformId = z.enum(platformIds);
export type ListedPlatformId = z.infer<typeof ListedPlatformId>;
/** With SUPPORTED_SITES=all, the name in upper case of the extractor that claims a link outside the table (TEDTALK, BANDCAMP). */
export type ClaimedPlatformId = string & { readonly claimedBy: "extractor" };
export const PlatformId = z
  .union([ListedPlatformId, z.string().regex(/^[A-Z0-9_]+$/)])
  .describe(
    "A platform of docs/api.md's table, OTHER for a host the operator added, or (SUPPORTED_SITES=all) the upper-case name of the yt-dlp or gallery-dl extractor that reads the link",
  );
export type PlatformId = ListedPlatformId | ClaimedPlatformId;

export const PostVideoVariant = z.object({
  qualityLabel: z.string().describe("`<height>p` when the height is known, else `audio` or the bitrate"),
  formatId: z.string().describe("yt-dlp format selector; pass it as `format` to /api/v1/download"),
  contentType: z.string().describe("Media type, for example video/mp4"),
});
export type PostVideoVariant = z.infer<typeof PostVideoVariant>;

/** One item of a post (a photo or a video), in the shape of the record's own video variants. */
function mediaItem<V extends z.ZodType>(variant: V) {
  return z.object({
    type: z.enum(["photo", "video", "gif"]),
    url: z
      .string()
      .nullable()
      .describe(
        "The photo at full size, or the video's best file that /api/v1/download relays as it is; null when the item needs page mode (download with `index`)",
      ),
    posterUrl: z.string().nullable().describe("Still image of a video; null for a photo"),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    durationSec: z.number().int().nullable(),
    videoVariants: z.array(variant).describe("The video's variants, best first; `[]` for a photo"),
  });
}

export const PostSubtitle = z.object({
  lang: z.string().describe(
    "Language code as the platform gives it (`en`, `pt-BR`); pass it as `subtitles` to /api/v1/download",
  ),
  name: z.string().nullable().describe("The track's name, when the platform gives one"),
  auto: z.boolean().describe("True for captions the platform made automatically"),
});
export type PostSubtitle = z.infer<typeof PostSubtitle>;

export const PostMediaItem = mediaItem(PostVideoVariant).extend({
  altText: z.string().nullable().describe(
    "The item's description for those who cannot see it, as its author wrote it, where the platform keeps one; null when there is none",
  ),
});
export type PostMediaItem = z.infer<typeof PostMediaItem>;

export const LinkCard = z.object({
  url: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable().describe("The card's picture, on the platform's media CDN"),
});
export type LinkCard = z.infer<typeof LinkCard>;

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
  media: z.array(PostMediaItem).describe(
    "Every item of the post in the platform's order; `index` of /api/v1/download counts from 1 in this list",
  ),
  subtitles: z.array(PostSubtitle).describe(
    "Subtitle tracks of the post's first item that /api/v1/download can embed (`subtitles=<lang>`)",
  ),
  card: LinkCard.nullable().describe(
    "The link preview the post carries (an external card); null when there is none",
  ),
});
export type PostRecord = z.infer<typeof PostRecord>;

export const TweetVideoVariant = z.object({
  qualityLabel: z.string(),
  url: z.string().describe("Direct media URL; pass it to /api/v1/download (direct mode)"),
  contentType: z.string(),
  bitrate: z.number().int().nullable(),
});
export type TweetVideoVariant = z.infer<typeof TweetVideoVariant>;

export const TweetMediaItem = mediaItem(TweetVideoVariant);
export type TweetMediaItem = z.infer<typeof TweetMediaItem>;

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
  media: z.array(TweetMediaItem).describe(
    "Every photo, video and GIF of the post in X's order; `index` of /api/v1/download counts from 1 in this list",
  ),
});
export type TweetRecord = z.infer<typeof TweetRecord>;

// The records as the API answers them: every default download, item and variant carries a signed
// link to /api/v1/download that works without a header (docs/api.md, Signed links).
const linked = {
  downloadUrl: z
    .string()
    .describe(
      "Absolute signed link to /api/v1/download for this, usable without any header (in `<video src>`, `<a download>`, curl) until it expires (LINK_TTL_S); counted against the key that asked",
    ),
};

export const LinkedPostVideoVariant = PostVideoVariant.extend(linked);
export const LinkedPostMediaItem = PostMediaItem.extend({ ...linked, videoVariants: z.array(LinkedPostVideoVariant) });
export type LinkedPostMediaItem = z.infer<typeof LinkedPostMediaItem>;
export const LinkedPostRecord = PostRecord.extend({
  ...linked,
  videoVariants: z.array(LinkedPostVideoVariant),
  media: z.array(LinkedPostMediaItem),
});
export type LinkedPostRecord = z.infer<typeof LinkedPostRecord>;

export const LinkedTweetVideoVariant = TweetVideoVariant.extend(linked);
export const LinkedTweetMediaItem = TweetMediaItem.extend({
  ...linked,
  videoVariants: z.array(LinkedTweetVideoVariant),
});
export const LinkedTweetRecord = TweetRecord.extend({
  ...linked,
  videoVariants: z.array(LinkedTweetVideoVariant),
  media: z.array(LinkedTweetMediaItem),
});
export type LinkedTweetRecord = z.infer<typeof LinkedTweetRecord>;
