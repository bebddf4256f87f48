// The operator's cookie file (COOKIES_FILE, Netscape format, as browser export extensions write
// it: domain, include-subdomains, path, secure, expiry, name, value per line), read as cookies,
// and the Cookie header a browser would send to a URL from it, for the service's own fetches of
// media files (direct mode, a photo post's pictures). Pure; the file is read by the caller, anew
// for every use.

export interface FileCookie {
  /** As written, with a leading dot when it covers subdomains. */
  domain: string;
  subdomains: boolean;
  path: string;
  secure: boolean;
  /** Seconds since the epoch; 0 for a session cookie. */
  expires: number;
  name: string;
  value: string;
}

export function parseCookieFile(text: string): FileCookie[] {
  return text.split(/\r?\n/).flatMap((raw) => {
    // Browsers mark HttpOnly cookies with this prefix instead of a field.
    const line = raw.startsWith("#HttpOnly_") ? raw.slice("#HttpOnly_".length) : raw;
    if (line.startsWith("#") || !line.trim()) return [];
    const [domain, subdomains, path, secure, expires, name, value] = line.split("\t");
    if (!domain || !name || value === undefined) return [];
    return [{
      domain,
      subdomains: subdomains === "TRUE",
      path: path || "/",
      secure: secure === "TRUE",
      expires: Number(expires) || 0,
      name,
      value: value.trim(),
    }];
  });
}

/** Whether a cookie has expired at `now` (a session cookie never has). */
export function expired(cookie: FileCookie, now: Date): boolean {
  return cookie.expires > 0 && cookie.expires * 1000 < now.getTime();
}

/** The `name=value; ...` pairs of the file that apply to `url`, or null when none do. */
export function cookieHeaderFor(fileText: string, url: URL, now: Date): string | null {
  const host = url.hostname.toLowerCase();
  const pairs = parseCookieFile(fileText).flatMap((cookie) => {
    const domain = cookie.domain.toLowerCase().replace(/^\./, "");
    const domainMatches = host === domain ||
      ((cookie.subdomains || cookie.domain.startsWith(".")) && host.endsWith(`.${domain}`));
    const applies = domainMatches && url.pathname.startsWith(cookie.path) && !expired(cookie, now) &&
      (!cookie.secure || url.protocol === "https:");
    return applies ? [`${cookie.name}=${cookie.value}`] : [];
  });
  return pairs.length === 0 ? null : pairs.join("; ");
}
