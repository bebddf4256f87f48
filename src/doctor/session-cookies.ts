// Whether the operator's cookie file still holds a live sign-in for a platform. Only a cookie's
// own expiry field can be read here: a session the platform ended early looks alive, and so
// does a cookie without an expiry (a browser session cookie). Pure; the caller reads the file.
import { expired, parseCookieFile } from "../media/cookie-header.ts";
import { platformTable } from "../platforms/table.ts";

/** The cookies that carry a signed-in session, per platform (what each site sets at sign-in). */
const sessionCookieNames: Readonly<Record<string, readonly string[]>> = {
  X: ["auth_token"],
  INSTAGRAM: ["sessionid"],
  YOUTUBE: ["SID", "__Secure-1PSID", "__Secure-3PSID", "LOGIN_INFO"],
  TIKTOK: ["sessionid", "sid_tt"],
  REDDIT: ["reddit_session"],
  FACEBOOK: ["c_user", "xs"],
  PINTEREST: ["_pinterest_sess"],
  AMAZON: ["session-token", "at-main"],
  VIMEO: ["vimeo"],
};

/**
 * "sessionid of .instagram.com expired 2026-01-02T..." when the file holds session cookies of the
 * platform and every one of them is past its expiry; null when it holds none, or one is live.
 */
export function expiredSession(fileText: string, site: string, now: Date): string | null {
  const names = sessionCookieNames[site];
  const hosts = platformTable.find(({ id }) => id === site)?.hosts;
  if (!names || !hosts) return null;
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
