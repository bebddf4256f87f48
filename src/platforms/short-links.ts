// The link a reader is given for a link as pasted: a mirror's link on its platform's own host
// (table.ts `canonicalLink`), and a short link (a platform module's `shortLinks`: a short host, or a
// share link's path) followed to the post it stands for. The service follows a short link itself, hop by
// hop through the outbound client (each hop checked by the egress policy), a few hops at most, and
// only while each hop stays on a host of the same platform: a short link is anyone's to make, so
// one that leads elsewhere (another platform, a private address) is refused, never fetched.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import type { Outbound } from "../net/outbound.ts";
import { canonicalLink, detectPlatform, shortLinkRow } from "./table.ts";

/** The link a reader reads for a pasted link (see above); `signal` ends the following early. */
export type LinkResolver = (pasted: URL, signal?: AbortSignal) => Promise<URL>;

/** Bound on each hop's exchange: a short-link host answers with a redirect at once. */
export const SHORT_LINK_TIMEOUT_MS = 8000;
/** Short links lead to their post in one or two hops (a share link may pass a consent or locale page). */
export const MAX_SHORT_LINK_HOPS = 4;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// A redirect's body is not read; this bounds what an answer that is no redirect could make the client read.
const MAX_ANSWER_BYTES = 64 * 1024;

export function createLinkResolver(outbound: Outbound): LinkResolver {
  return async (pasted, signal) => {
    let link = canonicalLink(pasted);
    for (let hops = 0;; hops++) {
      const row = shortLinkRow(link);
      if (row === null) return link;
      if (hops === MAX_SHORT_LINK_HOPS) {
        throw upstreamFailed(`This ${row.name} short link redirects more than ${MAX_SHORT_LINK_HOPS} times.`);
      }
      const answer = await outbound.text({ url: link, redirect: "manual", maxBytes: MAX_ANSWER_BYTES, signal });
      const next = redirectTarget(answer.status, answer.headers.get("location"), link);
      if (next === null) {
        throw new ApiError(
          "not_found",
          `This ${row.name} short link leads to no post (${link.host} answered ${answer.status}); check the link.`,
        );
      }
      if (detectPlatform(next, []) !== row.id) {
        throw new ApiError(
          "unsupported_url",
          `This ${row.name} short link leads to ${next.host}, which is not ${row.name}; only a short link that stays on its platform is followed.`,
        );
      }
      link = canonicalLink(next);
    }
  };
}

/** Where a redirect leads (http or https only); null when the answer is no redirect. */
function redirectTarget(status: number, location: string | null, base: URL): URL | null {
  if (!REDIRECT_STATUSES.has(status) || location === null) return null;
  const target = URL.parse(location, base);
  return target !== null && (target.protocol === "https:" || target.protocol === "http:") ? target : null;
}
