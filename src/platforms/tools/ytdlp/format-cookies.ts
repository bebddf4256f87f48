// The cookies a format's URL needs, for ffmpeg. Current yt-dlp names them in the format's
// `cookies` field in Set-Cookie syntax (`a=1; Domain=.site.com; Path=/; Secure; b=2; ...`);
// yt-dlp 2023 put a bare `Cookie` header into `http_headers` instead. Either becomes ffmpeg's
// `-cookies` lines, each scoped to the domain it names (the format URL's host for a bare
// header), so ffmpeg sends a cookie only to those hosts, across redirects and HLS segments too.
import type { YtdlpFormat } from "./info.ts";

const attributes = new Set([
  "domain",
  "path",
  "secure",
  "expires",
  "version",
  "max-age",
  "httponly",
  "samesite",
  "comment",
]);

interface Cookie {
  pair: string;
  domain: string | null;
  path: string | null;
}

function parseCookies(text: string): Cookie[] {
  const cookies: Cookie[] = [];
  for (const token of text.split(/;\s*/).map((part) => part.trim()).filter(Boolean)) {
    const [name = "", ...rest] = token.split("=");
    const key = name.trim().toLowerCase();
    const last = cookies.at(-1);
    if (attributes.has(key)) {
      if (last && key === "domain") last.domain = rest.join("=");
      if (last && key === "path") last.path = rest.join("=");
    } else if (rest.length > 0) {
      cookies.push({ pair: token.replace(/[\r\n]/g, ""), domain: null, path: null });
    }
  }
  return cookies;
}

/**
 * ffmpeg's `-cookies` lines for a format: `name=value; domain=D; path=P`. ffmpeg matches a
 * cookie's domain against the host with its port when the URL names one, so the port is added
 * then; a cookie for another host than the format's is kept for a redirect to it. ffmpeg also
 * matches the path against the request target, and plain http through the egress gate (a
 * forward proxy) asks for the absolute URL, so an http cookie's path starts with its origin
 * (https goes through a CONNECT tunnel and asks for the bare path).
 */
export function formatCookies(format: Pick<YtdlpFormat, "url" | "http_headers" | "cookies">): string[] {
  const url = URL.parse(format.url ?? "");
  if (url === null) return [];
  const header = Object.entries(format.http_headers ?? {}).find(([name]) => name.toLowerCase() === "cookie")?.[1];
  const cookies = [
    ...(format.cookies ? parseCookies(format.cookies) : []),
    ...(header ? parseCookies(header) : []),
  ];
  return cookies.map(({ pair, domain, path }) => {
    const host = (domain ?? url.hostname).replace(/[\s;]/g, "");
    const port = url.port && url.hostname.endsWith(host.replace(/^\./, "")) ? `:${url.port}` : "";
    return `${pair}; domain=${host}${port}; path=${
      url.protocol === "http:" ? `http://${host.replace(/^\./, "")}${port}` : ""
    }${(path ?? "/").replace(/[\s;]/g, "")}`;
  });
}

/** The headers without `Cookie`: its cookies go to ffmpeg scoped, through formatCookies. */
export function withoutCookieHeader(headers: Record<string, string> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== "cookie"));
}
