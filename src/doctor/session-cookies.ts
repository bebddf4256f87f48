// Whether the operator's cookie file still holds a live sign-in for a platform. Only a cookie's
// own expiry field can be read here: a session the platform ended early looks alive, and so
// does a cookie without an expiry (a browser session cookie). Pure; the caller reads the file.
import { expired, parseCookieFile } from "../media/cookie-header.ts";
import { platformList } from "../platforms/list.ts";

/**
 * "the session cookie <name> of <domain> in COOKIES_FILE expired 2026-01-02T..." when the file holds session
 * cookies of the platform (its module's `sessionCookies`) and every one of them is past its expiry; null when it
 * holds none, or one is live.
 */
export function expiredSession(fileText: string, site: string, now: Date): string | null {
  const platform = platformList.find(({ id }) => id === site);
  const names = platform?.sessionCookies;
  if (platform === undefined || names === undefined) return null;
  const hosts = platform.hosts;
  const found = parseCookieFile(fileText).filter(({ domain, name }) => {
    const bare = domain.toLowerCase().replace(/^\./, "");
    return names.includes(name) && hosts.some((host) => bare === host || bare.endsWith(`.${host}`));
  });
  if (found.length === 0 || found.some((cookie) => !expired(cookie, now))) return null;
  const last = found.reduce((a, b) => (b.expires > a.expires ? b : a));
  return `the session cookie ${last.name} of ${last.domain} in COOKIES_FILE expired ${
    new Date(last.expires * 1000).toISOString()
  }`;
}
