// GET /api/v1/post?url=: the platform-independent record of docs/api.md. X posts come from
// the tweet extractor; every other platform from yt-dlp or gallery-dl (platforms/post-source.ts).
import type { ApiHandler } from "../http/context.ts";
import { json } from "../http/json-response.ts";
import { parseQuery, PostQuery } from "../http/query.ts";
import { ApiError } from "../http/problem.ts";
import { slotHolder, type SlotHolder, type Slots } from "../limits/slots.ts";
import { requireTools, type Tools } from "../processes/tools.ts";
import type { PlatformId, PostRecord } from "../platforms/records.ts";
import { detectPlatform, supportedPlatformsText } from "../platforms/table.ts";
import { tweetToPost } from "../platforms/x/post.ts";
import type { TweetSource } from "../platforms/x/source.ts";
import { parseStatusId } from "../platforms/x/url.ts";
import type { GallerySource } from "../platforms/gallerydl/source.ts";
import { describePost, firstTool } from "../platforms/post-source.ts";
import type { PageSource } from "../platforms/ytdlp/source.ts";

export interface PostDeps {
  tweets: TweetSource;
  pages: PageSource;
  galleries: GallerySource;
  tools: Promise<Tools>;
  /** Concurrent extractions (yt-dlp, gallery-dl): each is a Python process for up to a minute. */
  extractions: Slots;
  extraPageHosts: readonly string[];
}

/** The platform of a page link, or 400 unsupported_platform naming the ones there are. */
function requirePlatform(url: URL, extraPageHosts: readonly string[]): PlatformId {
  const platform = detectPlatform(url, extraPageHosts);
  if (platform === null) {
    throw new ApiError("unsupported_platform", `${url.hostname} is not a supported platform. Supported: ${supportedPlatformsText}.`);
  }
  return platform;
}

/** Who asks for a post: a key (its and its account's extraction slots), or the platform check (no key, nothing counted, never cached). */
export type PostAsker = { key: SlotHolder } | { check: true };

/**
 * The record of a post, the way every `post` request gets it; the platform check (src/doctor/)
 * runs its reference posts through this same function.
 */
export async function postRecord(deps: PostDeps, page: URL, asker: PostAsker): Promise<PostRecord> {
  const platform = requirePlatform(page, deps.extraPageHosts);
  const uncached = "check" in asker;
  if (platform === "X") return tweetToPost(await deps.tweets.getTweet(parseStatusId(page.href), { uncached }));
  await requireTools(deps.tools, [firstTool(page, platform)]);
  // The check runs one post at a time (src/doctor/checker.ts) and holds no key's slot.
  const release = "key" in asker ? deps.extractions.acquire(asker.key) : () => {};
  try {
    return await describePost(deps, page, platform, { uncached });
  } finally {
    release();
  }
}

export function postHandler(deps: PostDeps): ApiHandler {
  return async (ctx) => json(await postRecord(deps, parseQuery(PostQuery, ctx.url.searchParams).url, { key: slotHolder(ctx) }));
}
