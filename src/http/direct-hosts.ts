// Which URLs direct mode may fetch: the microblogging platform's media CDN, nothing else.

import { ApiError } from "./problem.ts";

export const DIRECT_HOSTS: ReadonlySet<string> = new Set(["video.twimg.com", "pbs.twimg.com", "ton.twimg.com"]);

/** Whether direct mode may fetch this URL. Used for the caller's URL and for every redirect target. */
export function isDirectUrl(url: URL): boolean {
  // URL lowercases the host and drops the default port, so "" means 443 here; an IP literal or a
  // trailing-dot host can never equal one of the names.
  return (
    url.protocol === "https:" &&
    url.username === "" &&
    url.password === "" &&
    url.port === "" &&
    DIRECT_HOSTS.has(url.hostname)
  );
}

/** Throws 403 host_not_allowed unless direct mode may fetch this URL. */
export function assertDirectUrl(url: URL, what = "The url"): void {
  if (isDirectUrl(url)) return;
  throw new ApiError(
    "host_not_allowed",
    `${what} must be an https link without user, password or port on one of ${
      [...DIRECT_HOSTS].join(", ")
    }, or a page link of a supported platform.`,
  );
}

/** The URL to fetch for `url` when the operator sends its host to another origin (ORIGIN_OVERRIDES); else `url` itself. */
export function withOriginOverride(url: URL, overrides: ReadonlyMap<string, string>): URL {
  const origin = overrides.get(url.hostname);
  return origin === undefined ? url : new URL(url.pathname + url.search, origin);
}
