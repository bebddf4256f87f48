// The operator's X session from their cookie file (COOKIES_FILE, Netscape format, as browser
// export extensions write it): the `auth_token` and `ct0` cookies of x.com. X's web client
// sends both as cookies and `ct0` again as the `x-csrf-token` header. Pure; the file is read
// by the caller, anew for every use.

import { expired, parseCookieFile } from "../../media/cookie-header.ts";

/** Where X's session cookies are sent: the jar of X's hosts is asked for this origin's. */
export const X_SESSION_ORIGIN = new URL("https://x.com/");

export interface XSession {
  authToken: string;
  ct0: string;
  /** X refused the session: its account of the jar is set aside for a while (platforms/cookie-jars.ts). */
  refused?: (reason: string) => void;
}

const xDomain = /^(\.?x\.com|\.?twitter\.com)$/i;

/** The x.com session in a Netscape cookie file's text, or null when it has none (or it expired). */
export function xSessionFromCookieFile(text: string, now: Date): XSession | null {
  const found = new Map<string, string>();
  for (const cookie of parseCookieFile(text)) {
    if (!xDomain.test(cookie.domain) || expired(cookie, now)) continue;
    // x.com wins over twitter.com when a file holds both.
    if (!found.has(cookie.name) || /x\.com$/i.test(cookie.domain)) found.set(cookie.name, cookie.value);
  }
  const authToken = found.get("auth_token");
  const ct0 = found.get("ct0");
  return authToken && ct0 ? { authToken, ct0 } : null;
}

/** The request headers of X's web client for a signed-in session. */
export function sessionHeaders(session: XSession): Record<string, string> {
  return {
    cookie: `auth_token=${session.authToken}; ct0=${session.ct0}`,
    "x-csrf-token": session.ct0,
    "x-twitter-auth-type": "OAuth2Session",
    "x-twitter-active-user": "yes",
  };
}
