// GET /api/v1/post?url=: the platform-independent record of docs/api.md. X posts come from
// the tweet extractor; every other platform from yt-dlp or gallery-dl (platforms/post-source.ts).
import type { ApiHandler } from "../http/context.ts";
import { json } from "../http/json-response.ts";
import { parseQuery, PostQuery } from "../http/query.ts";
import { ApiError } from "../http/problem.ts";
import type { Slots } from "../limits/slots.ts";
import { requireTools, type Tools } from "../processes/tools.ts";
import type { PlatformId } from "../platforms/records.ts";
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
    throw new ApiError(400, "unsupported_platform", `${url.hostname} is not a supported platform. Supported: ${supportedPlatformsText}.`);
  }
  return platform;
}

export function postHandler(deps: PostDeps): ApiHandler {
  return async ({ url, key }) => {
    const page = parseQuery(PostQuery, url.searchParams).url;
    const platform = requirePlatform(page, deps.extraPageHosts);
    if (platform === "X") return json(tweetToPost(await deps.tweets.getTweet(parseStatusId(page.href))));
    await requireTools(deps.tools, [firstTool(page, platform)]);
    const release = deps.extractions.acquire(key);
    try {
      return json(await describePost(deps, page, platform));
    } finally {
      release();
    }
  };
}
