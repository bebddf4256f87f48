// Post links of X as people paste them. The status id is the only part that matters upstream.
import { ApiError } from "../../http/problem.ts";
import type { Link } from "../source.ts";
import { canonicalLink, unknownShape } from "../table.ts";

/** Hosts whose links are X post pages (docs/api.md, Tweet record). */
export const xPageHosts = [
  "x.com",
  "www.x.com",
  "mobile.x.com",
  "twitter.com",
  "www.twitter.com",
  "mobile.twitter.com",
] as const;

// `/<user>/status/<id>`, `/<user>/statuses/<id>`, `/i/web/status/<id>`, `/i/status/<id>`, optionally followed by
// a suffix X's web client writes: its media viewer's `/photo/<n>` and `/video/<n>` (`/mediaViewer` on its mobile
// site), and a post's other views (`/media_tags`, `/analytics`, `/likes`, `/retweets`, `/retweets/with_comments`,
// `/quotes`, `/history`), each of which stands for the post; and the older card and video player links of a post
// (`/i/cards/tfw/v1/<id>`, `/i/videos/<id>`, `/i/videos/tweet/<id>`, yt-dlp's TwitterCard), which name it by its id.
// Handles are 1-15 word characters. Ids are 64-bit integers, so at most 19 digits.
const statusPath =
  /^\/(?:(?:i\/web\/|i\/|\w{1,15}\/)?status(?:es)?|i\/cards\/tfw\/v1|i\/videos(?:\/tweet)?)\/(\d{1,19})(?:\/(?:(?:photo|video)\/(\d{1,2})|media[vV]iewer|media_tags|analytics|likes|retweets(?:\/with_comments)?|quotes|history))?\/?$/;
// A bookmark's link, as X's web client opens a bookmarked post: `/i/bookmarks?post_id=<id>`.
const bookmarkPath = /^\/i\/bookmarks\/?$/;
const statusId = /^\d{1,19}$/;

const example = "https://x.com/<user>/status/<numeric id> (twitter.com links work too)";

function invalid(input: string): ApiError {
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  return new ApiError("invalid_url", `Pass the link of an X post, such as ${example}; got "${shown}".`);
}

/** A post link of X: the post's id, and the item its media viewer's `/photo/<n>` or `/video/<n>` names. */
export interface StatusLink {
  id: string;
  /** X numbers a post's photos and videos together, 1 to 4 in the post's order (the record's `media`); null without one. */
  item: number | null;
}

/** The post an X link on one of its hosts names (its path, or a 2010-2012 hash-bang); null when it names none. */
export function statusLinkOf(url: URL): StatusLink | null {
  // Links from the 2010-2012 web client carry the path in a hash-bang fragment: twitter.com/#!/jack/status/20
  const path = url.pathname === "/" && url.hash.startsWith("#!/") ? url.hash.slice(2).split("?")[0]! : url.pathname;
  if (bookmarkPath.test(path)) {
    const id = url.searchParams.get("post_id") ?? "";
    return statusId.test(id) ? { id, item: null } : null;
  }
  const match = statusPath.exec(path);
  if (match === null) return null;
  const item = match[2] === undefined ? null : Number(match[2]);
  return { id: match[1]!, item: item === 0 ? null : item };
}

/** The post a link of X's hosts names; 400 naming the shapes X's module knows for any other link. */
export function statusOf(link: Link): StatusLink {
  const status = statusLinkOf(link.url);
  if (status === null) throw unknownShape(link.url, link.platform);
  return status;
}

/** The status id in a pasted X post link; throws 400 invalid_url for anything else. */
export function parseStatusId(input: string): string {
  const trimmed = input.trim();
  // People paste links without a scheme ("x.com/jack/status/20"); URL needs one.
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    // A link on a mirror (fxtwitter.com, vxtwitter.com, ...) is read as X's own (table.ts).
    url = canonicalLink(new URL(withScheme));
  } catch {
    throw invalid(input);
  }
  const hostOk = (xPageHosts as readonly string[]).includes(url.hostname.toLowerCase());
  if (!hostOk || (url.protocol !== "https:" && url.protocol !== "http:")) throw invalid(input);
  const link = statusLinkOf(url);
  if (link === null) throw invalid(input);
  return link.id;
}

// A profile: `/<handle>`, but for the first segments of X's own pages.
const profilePath = /^\/(\w{1,15})\/?$/;
const ownPages = new Set(["home", "explore", "notifications", "messages", "search", "settings", "compose", "i"]);

/** The handle of an X profile link (its posts, not one of its tabs); null for any other link. */
export function profileHandleOf(url: URL): string | null {
  const handle = profilePath.exec(url.pathname)?.[1];
  return handle === undefined || ownPages.has(handle.toLowerCase()) ? null : handle;
}
