// Post descriptions from gallery-dl, kept briefly like yt-dlp's (ytdlp/client.ts), so that `post`
// followed by `download` of the same link extracts once.
import type { Extractor } from "../../../processes/extractor.ts";
import { sharedRuns } from "../../../util/shared-runs.ts";
import { createTtlCache } from "../../../util/ttl-cache.ts";
import { emptyPostError, isEmptyPost } from "../../post-errors.ts";
import type { PlatformId, PostRecord } from "../../records.ts";
import { type ToolAccess, withToolAccess } from "../tool-access.ts";
import { galleryToPost } from "./post.ts";
import { type GalleryMetadata, runGallery } from "./run.ts";

export interface GalleryClientOptions extends ToolAccess {
  /** Runs gallery-dl (per request, or in the warm extraction host). */
  extractor: Extractor;
  timeoutMs: number;
  socketTimeoutSec: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
  /** GALLERY_DL_CA_FILE: the certificate authorities gallery-dl trusts instead of its own. */
  caFile?: string;
  /** Most files of a post (a carousel, a gallery, a profile) a record holds (PLAYLIST_MAX_ITEMS). */
  maxItems: number;
  now?: () => number;
}

export interface GalleryClient {
  /**
   * The post's record as gallery-dl reads it: every photo and video in the platform's order.
   * `uncached` skips a kept record (the platform check wants to know how the platform answers now).
   */
  post(page: URL, platform: PlatformId, options?: { uncached?: boolean }): Promise<PostRecord>;
  /** The metadata of the posts gallery-dl lists for a link (a profile), the first `posts` of them, without files; not kept. */
  listing(page: URL, posts: number, signal: AbortSignal): Promise<GalleryMetadata[]>;
}

export function createGalleryClient(options: GalleryClientOptions): GalleryClient {
  const cache = createTtlCache<PostRecord>({ maxEntries: options.cacheMaxEntries, now: options.now ?? Date.now });
  const shared = sharedRuns<PostRecord>();

  const run = (page: URL, what: { items: string; files?: boolean; signal?: AbortSignal }) =>
    withToolAccess(
      options,
      page,
      true,
      (access) =>
        runGallery(page.href, {
          extractor: options.extractor,
          timeoutMs: options.timeoutMs,
          socketTimeoutSec: options.socketTimeoutSec,
          caFile: options.caFile,
          ...what,
          ...access,
        }),
    );

  async function fresh(page: URL, platform: PlatformId): Promise<PostRecord> {
    const output = await run(page, { items: `1-${options.maxItems}` });
    const record = galleryToPost(output, platform, page);
    // gallery-dl prints `[]` and exits 0 after a warning (a login redirect, a site out of reach).
    if (isEmptyPost(record)) throw emptyPostError("gallery-dl", output.log);
    cache.set(page.href, record, options.cacheTtlMs);
    return record;
  }

  return {
    post(page, platform, { uncached = false } = {}) {
      const kept = uncached ? undefined : cache.get(page.href);
      if (kept) return Promise.resolve(kept);
      return shared(page.href, () => fresh(page, platform));
    },
    async listing(page, posts, signal) {
      return (await run(page, { items: `1-${posts}`, files: false, signal })).posts;
    },
  };
}
