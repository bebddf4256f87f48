// A job's expansion of a link gallery-dl lists (platforms/source.ts, Expands): a profile whose posts its platform
// module says gallery-dl lists (`galleryDlListing`), in the order the platform lists them (newest first), read as
// gallery-dl pages through them, up to what the job may still hold. A platform that shows a profile's posts only to
// a signed-in account answers a run without the operator's session with its sign-in page: no post, and why.
import { isSignInWall } from "../../blocked.ts";
import { profileExpansion } from "../../profile-expansion.ts";
import type { PlatformId } from "../../records.ts";
import type { Expands, Expansion, Link } from "../../source.ts";
import { rowOf } from "../../table.ts";
import type { GalleryMetadata } from "./run.ts";
import type { GalleryClient } from "./client.ts";

export function galleryExpansion(galleries: GalleryClient): Expands<Expansion> {
  return {
    mayExpand: (link) => postsLinkOf(link) !== null,
    async expand(link, limit, signal) {
      const posts = postsLinkOf(link);
      if (posts === null) return null;
      let listed: GalleryMetadata[];
      try {
        // One more than the job may hold says whether the profile goes on past it.
        listed = await galleries.listing(posts, limit + 1, signal);
      } catch (error) {
        if (isSignInWall(error)) return signInWall(link.platform);
        throw error;
      }
      return listingExpansion(listed, limit);
    },
  };
}

/** The link gallery-dl lists the posts of, for a link of its platform's `galleryDlListing`; null for any other. */
export function postsLinkOf(link: Link): URL | null {
  const listing = rowOf(link.platform)?.galleryDlListing;
  if (listing === undefined || !listing.shape.test(link.url.pathname)) return null;
  return new URL(link.url.pathname.replace(listing.shape, listing.postsPath), link.url.origin);
}

/** The posts of a listing (each post's `post_url`, once), the first `limit` of them. */
export function listingExpansion(listed: readonly GalleryMetadata[], limit: number): Expansion {
  const links = [...new Set(listed.map((post) => post.post_url).filter(isWebLink))].map((href) => new URL(href));
  return profileExpansion(links, limit, links.length > limit);
}

const isWebLink = (value: unknown): value is string =>
  typeof value === "string" && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

function signInWall(platform: PlatformId): Expansion {
  const row = rowOf(platform);
  const cookies = row?.sessionCookies?.join(" and ") ?? "session";
  return {
    posts: [],
    complete: false,
    incomplete: `${
      row?.name ?? platform
    } answered with its sign-in page: it shows a profile's posts only to a signed-in account. The operator gives this service one with the ${cookies} cookie of a signed-in browser in COOKIES_FILE, or a fresh one when it has expired; or pass the links of its posts`,
  };
}
