// Which media tool describes a post of a platform other than X. yt-dlp is made for video and
// audio, gallery-dl for photos, carousels and galleries. A link whose shape says it is a photo
// post (an Instagram /p/ post, which may hold photos and videos, a TikTok /photo/, a Reddit
// /gallery/, a Facebook photo) goes to gallery-dl; any other goes to yt-dlp first, and on a
// platform gallery-dl reads to gallery-dl too when yt-dlp finds no video in it, or fails in a way
// gallery-dl may not (its extractor out of date with the site, Instagram's logged-out path that
// Debian's yt-dlp cannot take), or reads only sound in it (a TikTok slideshow behind a /video/
// link, which yt-dlp gives as its music). A platform's refusal, a missing post and the time cap stand.
//
// gallery-dl keeps the platform's order of photos and videos, and gives each video as the file
// the platform serves (Instagram's merged MP4), which the download operation relays as it is. yt-dlp
// cannot describe such a carousel at all: a picture in it has no format, and yt-dlp fails the
// whole post.
import type { ErrorCode } from "../http/errors.ts";
import { ApiError } from "../http/problem.ts";
import type { GallerySource } from "./gallerydl/source.ts";
import type { PlatformId, PostRecord } from "./records.ts";
import { rowOf } from "./table.ts";
import { infoToPost } from "./ytdlp/post.ts";
import type { PageSource } from "./ytdlp/source.ts";

/** Whether gallery-dl reads posts of the platform beside yt-dlp (X has the tweet extractor). */
export function galleryReads(platform: PlatformId): boolean {
  return rowOf(platform)?.reader === "yt-dlp+gallery-dl";
}

/** yt-dlp's failures after which gallery-dl is asked: no video in the post, or a failure of yt-dlp's own. */
const galleryFallbacks: ReadonlySet<ErrorCode> = new Set(["unsupported_url", "upstream_failed"]);

/** Whether the link's shape says it is a post of photos (or of photos and videos). */
export function isPhotoShaped(page: URL, platform: PlatformId): boolean {
  return rowOf(platform)?.photoShape?.test(page.pathname) ?? false;
}

export interface PostSources {
  pages: PageSource;
  galleries: GallerySource;
}

/**
 * Does `withYtdlp`, or `withGallery` with gallery-dl's record, as the link's shape and yt-dlp's
 * answer say (see above); `soundOnly` says whether what yt-dlp made holds nothing but sound. The
 * post operation describes the post this way and the download operation fetches it this way, so
 * both choose the same tool.
 */
export async function byTool<T>(
  sources: PostSources,
  page: URL,
  platform: PlatformId,
  withYtdlp: () => Promise<T>,
  withGallery: (record: PostRecord) => Promise<T>,
  soundOnly: (made: T) => boolean = () => false,
): Promise<T> {
  if (isPhotoShaped(page, platform)) return withGallery(await sources.galleries.post(page, platform));
  let made: T;
  try {
    made = await withYtdlp();
  } catch (error) {
    if (!(error instanceof ApiError && galleryFallbacks.has(error.code) && galleryReads(platform))) throw error;
    // When gallery-dl finds nothing either, yt-dlp's answer stands; past "no video" it says more than gallery-dl's would.
    const record = await sources.galleries.post(page, platform).catch((galleryError: unknown) => {
      const noVideo = error.code === "unsupported_url" && !(galleryError instanceof ApiError && galleryError.code === "unsupported_url");
      throw noVideo ? galleryError : error;
    });
    if (record.media.length === 0) throw error;
    return withGallery(record);
  }
  if (!galleryReads(platform) || !soundOnly(made)) return made;
  // Pictures, if gallery-dl finds any, say more than the sound alone; else yt-dlp's answer stands.
  const record = await sources.galleries.post(page, platform).catch(() => null);
  return record !== null && record.media.some((item) => item.type !== "video") ? withGallery(record) : made;
}

/** A record of nothing but sound: every item a video whose variants are audio only (or none). */
export function soundOnlyRecord(record: PostRecord): boolean {
  return record.media.every((item) => item.type === "video" && item.videoVariants.every((variant) => variant.qualityLabel === "audio"));
}

/** The post's record, by whichever tool reads it; `uncached` past what either tool keeps (the platform check). */
export function describePost(sources: PostSources, page: URL, platform: PlatformId, options: { uncached?: boolean } = {}): Promise<PostRecord> {
  const read: PostSources = { pages: sources.pages, galleries: { post: (link, on) => sources.galleries.post(link, on, options) } };
  return byTool(read, page, platform, async () => infoToPost(await sources.pages.info(page, options), platform, page), async (record) => record, soundOnlyRecord);
}

/** The tool a post's link goes to first. */
export function firstTool(page: URL, platform: PlatformId): "yt-dlp" | "gallery-dl" {
  return isPhotoShaped(page, platform) ? "gallery-dl" : "yt-dlp";
}
