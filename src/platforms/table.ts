// The platform table of docs/api.md: which page hosts belong to which platform. Adding a
// platform is one row. A page host matches itself and any subdomain (www., m., mobile., ...).
import { extraHostEndpoint, portOf } from "../media/egress.ts";
import { ApiError } from "../http/problem.ts";
import type { PlatformId } from "./records.ts";

interface PlatformRow {
  id: Exclude<PlatformId, "OTHER">;
  /** Human name for error messages and docs. */
  name: string;
  hosts: readonly string[];
  /** The platform's media CDN hosts (each with its subdomains), from which a post's files are relayed as they are. */
  mediaHosts?: readonly string[];
}

const countryDomains = (label: string, suffixes: readonly string[]) => suffixes.map((s) => `${label}.${s}`);

// Explicit country lists rather than a `label.<any tld>` pattern, so that a look-alike domain
// someone else owns never counts as the platform.
const pinterestSuffixes = [
  "com", "co.uk", "ca", "com.au", "de", "fr", "es", "it", "nl", "pt", "ch", "at", "co.at", "be",
  "ie", "dk", "se", "hu", "ru", "jp", "kr", "co.kr", "in", "co.in", "id", "ph", "th", "tw", "vn",
  "com.vn", "nz", "co.nz", "mx", "com.mx", "cl", "co", "pe", "com.pe", "ec", "com.ec", "com.uy",
  "com.py", "com.bo", "info", "uk",
] as const;
const amazonSuffixes = [
  "com", "ca", "com.mx", "com.br", "co.uk", "de", "fr", "it", "es", "nl", "se", "pl", "com.be",
  "com.tr", "ae", "sa", "eg", "in", "sg", "co.jp", "com.au", "cn", "ie", "co.za",
] as const;

export const platformTable: readonly PlatformRow[] = [
  { id: "X", name: "X (Twitter)", hosts: ["twitter.com", "x.com"] },
  { id: "INSTAGRAM", name: "Instagram", hosts: ["instagram.com"], mediaHosts: ["cdninstagram.com", "fbcdn.net"] },
  { id: "YOUTUBE", name: "YouTube", hosts: ["youtube.com", "youtu.be", "youtube-nocookie.com"] },
  { id: "TIKTOK", name: "TikTok", hosts: ["tiktok.com"], mediaHosts: ["tiktokcdn.com", "tiktokcdn-us.com", "tiktokcdn-eu.com", "tiktokv.com", "ibyteimg.com", "byteimg.com"] },
  { id: "REDDIT", name: "Reddit", hosts: ["reddit.com", "redd.it"], mediaHosts: ["i.redd.it", "preview.redd.it", "v.redd.it", "redditmedia.com"] },
  { id: "FACEBOOK", name: "Facebook", hosts: ["facebook.com", "fb.watch"], mediaHosts: ["fbcdn.net"] },
  { id: "PINTEREST", name: "Pinterest", hosts: [...countryDomains("pinterest", pinterestSuffixes), "pin.it"], mediaHosts: ["pinimg.com"] },
  { id: "AMAZON", name: "Amazon", hosts: countryDomains("amazon", amazonSuffixes) },
  { id: "VIMEO", name: "Vimeo", hosts: ["vimeo.com"] },
  { id: "DAILYMOTION", name: "Dailymotion", hosts: ["dailymotion.com", "dai.ly"] },
];

/** For the detail of a 400 `unsupported_platform`. */
export const supportedPlatformsText = platformTable.map((row) => row.name).join(", ");

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

function hostMatches(hostname: string, pageHost: string): boolean {
  return hostname === pageHost || hostname.endsWith(`.${pageHost}`);
}

/** The entry of the extra page hosts (operator configuration) a page URL is on; else null. */
export function extraPageHostOf(url: URL, extraPageHosts: readonly string[]): string | null {
  const hostname = normalizeHost(url.hostname);
  const port = portOf(url);
  return (
    extraPageHosts.find((entry) => {
      const extra = extraHostEndpoint(entry);
      return hostMatches(hostname, extra.host) && extra.ports.includes(port);
    }) ?? null
  );
}

function tablePlatform(url: URL): PlatformRow["id"] | null {
  const hostname = normalizeHost(url.hostname);
  return platformTable.find((r) => r.hosts.some((h) => hostMatches(hostname, h)))?.id ?? null;
}

/** The platform a page URL belongs to; extra hosts (operator configuration) are `OTHER`; else null. */
export function detectPlatform(url: URL, extraPageHosts: readonly string[]): PlatformId | null {
  return tablePlatform(url) ?? (extraPageHostOf(url, extraPageHosts) === null ? null : "OTHER");
}

/**
 * What the platform check calls the site of a page URL: its platform of the table, or the extra
 * page host entry it is on (a fixed set the operator chose, so it can name a metric's series).
 */
export function siteOf(url: URL, extraPageHosts: readonly string[]): string | null {
  return tablePlatform(url) ?? extraPageHostOf(url, extraPageHosts);
}

/**
 * Throws 403 host_not_allowed unless `url` is an https file on one of the platform's media hosts
 * (no user, password or port): a post's files are relayed from there and from nowhere else.
 */
export function platformMediaCheck(platform: PlatformId): (url: URL, what?: string) => void {
  const row = platformTable.find((r) => r.id === platform);
  const hosts = row?.mediaHosts ?? [];
  return (url, what = "A file of the post") => {
    const plain = url.protocol === "https:" && url.username === "" && url.password === "" && url.port === "";
    if (plain && hosts.some((host) => hostMatches(normalizeHost(url.hostname), host))) return;
    throw new ApiError("host_not_allowed", `${what} is on ${url.host}, which is not a media host of ${row?.name ?? platform} this server fetches from.`);
  };
}
