// The post the platform check fetches for each site: by default the reference post of its row of
// the platform table (a row may have none). The operator replaces or drops any of them, and adds
// posts on their EXTRA_PAGE_HOSTS, with PLATFORM_CHECK_POSTS.
import { ConfigError } from "../config.ts";
import { platformList } from "../platforms/list.ts";
import { siteOf } from "../platforms/table.ts";

export interface ReferencePost {
  /** The platform's id in the list, or the EXTRA_PAGE_HOSTS entry the post is on. */
  site: string;
  url: URL;
}

/** One entry of PLATFORM_CHECK_POSTS: `PLATFORM=url`, `PLATFORM=off`, or a bare URL on an extra page host. */
export type ReferenceEntry = { platform: string; url: URL | null } | { url: URL };

/**
 * The posts to check, in the table's order and then the operator's extra ones: each platform's
 * default unless an entry replaces it (`<ID>=<url>`, which may point anywhere the service may
 * fetch, a local stand-in too) or drops it (`<ID>=off`). A bare URL must be on one of the
 * EXTRA_PAGE_HOSTS, whose entry then names its check.
 */
export function referencePosts(entries: readonly ReferenceEntry[], extraPageHosts: readonly string[]): ReferencePost[] {
  const replaced = new Map(
    entries.flatMap((entry) => ("platform" in entry ? [[entry.platform, entry.url] as const] : [])),
  );
  const posts: ReferencePost[] = platformList.flatMap(({ id, referencePost }) => {
    const url = replaced.has(id) ? replaced.get(id)! : referencePost === null ? null : new URL(referencePost);
    return url === null ? [] : [{ site: id, url }];
  });
  for (const entry of entries) {
    if ("platform" in entry) continue;
    const site = siteOf(entry.url, extraPageHosts);
    if (site === null || platformList.some(({ id }) => id === site)) {
      throw new ConfigError(
        `PLATFORM_CHECK_POSTS: ${entry.url.href} is not on one of the EXTRA_PAGE_HOSTS; a platform's post is given as PLATFORM=url${
          site === null ? "" : ` (${site}=${entry.url.href})`
        }.`,
      );
    }
    if (posts.some((post) => post.site === site)) {
      throw new ConfigError(`PLATFORM_CHECK_POSTS: two posts for ${site}; give one per host.`);
    }
    posts.push({ site, url: entry.url });
  }
  return posts;
}
