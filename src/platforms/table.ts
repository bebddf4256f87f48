// The platform table of docs/api.md: which page hosts belong to which platform, read from the list
// of platform modules (list.ts). A page host matches itself and any subdomain (www., m., mobile., ...).
import { extraHostEndpoint, portOf } from "../net/egress.ts";
import { ApiError } from "../http/problem.ts";
import type { Claim } from "./claims.ts";
import { platformList } from "./list.ts";
import { hostMatches, mediaCheckOf, normalizeHost } from "./hosts.ts";
import { unknownShapeOf } from "./known-shapes.ts";
import type { MediaFileShape, Platform, ReaderName, ShortLinkShape } from "./platform.ts";
import type { ClaimedPlatformId, ListedPlatformId, PlatformId } from "./records.ts";

/** A platform of the list, or of a site outside it that an extractor claimed (SUPPORTED_SITES=all). */
export type PlatformRow = Platform<Exclude<ListedPlatformId, "OTHER"> | ClaimedPlatformId>;

// The rows of sites outside the table that an extractor claimed (SUPPORTED_SITES=all), by id. A
// row follows from the extractor alone, so each is made once and kept (some thousand at most).
const claimedRows = new Map<string, PlatformRow>();

/**
 * The row of a link outside the table that an extractor of the installed tools claims: named after
 * yt-dlp's extractor when it has one (yt-dlp reads the link, gallery-dl where yt-dlp finds no
 * video and gallery-dl claims it too), else after gallery-dl's, which then reads every link of it.
 * No media hosts: only page mode fetches its files. Null when neither tool claims the link.
 */
export function claimedRow(url: URL, claim: Claim): PlatformRow | null {
  const name = claim.ytdlp ?? claim.gallerydl;
  if (name === null) return null;
  const id = name.toUpperCase().replace(/[^A-Z0-9_]/g, "_") as ClaimedPlatformId;
  const known = claimedRows.get(id);
  if (known) return known;
  const extractor = { id, name, hosts: [], referencePost: url.href, readBy: name, samples: [] };
  const row: PlatformRow = claim.ytdlp === null
    ? { ...extractor, reader: "yt-dlp+gallery-dl", photoShape: /^/ }
    : { ...extractor, reader: claim.gallerydl === null ? "yt-dlp" : "yt-dlp+gallery-dl" };
  claimedRows.set(id, row);
  return row;
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

/** The canonical host a mirror host of a row stands for; null when the host is no row's mirror. */
function mirroredHost(rows: readonly PlatformRow[], hostname: string): string | null {
  for (const row of rows) {
    const mirror = Object.keys(row.mirrors ?? {}).find((host) => hostMatches(hostname, host));
    if (mirror !== undefined) return row.mirrors![mirror]!;
  }
  return null;
}

function canonicalOn(rows: readonly PlatformRow[], url: URL): URL {
  const canonical = mirroredHost(rows, normalizeHost(url.hostname));
  if (canonical === null) return url;
  const link = new URL(url.href);
  link.protocol = "https:";
  link.port = "";
  // A user and password were the mirror's, as its port was: never handed on to the platform's own host.
  link.username = "";
  link.password = "";
  link.hostname = canonical;
  return link;
}

function shortLinkOn(rows: readonly PlatformRow[], url: URL): PlatformRow | null {
  const hostname = normalizeHost(url.hostname);
  const isShort = (shape: ShortLinkShape) =>
    hostMatches(hostname, shape.host) && (shape.path?.test(url.pathname) ?? true);
  return rows.find((row) => row.shortLinks?.some(isShort)) ?? null;
}

/** Whether the link is one of the row's media files (`mediaFiles`): a photo file on one of its media hosts. */
function isMediaFileOf(row: PlatformRow | undefined, url: URL): boolean {
  const hostname = normalizeHost(url.hostname);
  const isFile = (shape: MediaFileShape) => hostMatches(hostname, shape.host) && shape.path.test(url.pathname);
  return row?.mediaFiles?.some(isFile) === true;
}

function rowOn(rows: readonly PlatformRow[], url: URL): PlatformRow | null {
  const hostname = normalizeHost(canonicalOn(rows, url).hostname);
  const onHost = (row: PlatformRow) =>
    [...row.hosts, ...(row.shortLinks ?? []).map((shape) => shape.host)].some((host) => hostMatches(hostname, host));
  // A media host is the platform's for its files' links alone: any other link there is no page of it.
  return rows.find(onHost) ?? rows.find((row) => isMediaFileOf(row, url)) ?? null;
}

/** Whether the link is of its row's `collectionShape`: a profile, a feed or a list, which no reader reads as one post. */
function standsForManyOf(row: PlatformRow | undefined, url: URL): boolean {
  return row?.collectionShape?.test(url.pathname) === true;
}

/**
 * Throws 400 invalid_url for a link of the row's `collectionShape` (a profile, a feed, a list), naming the job call
 * that runs many posts: the row's reader reads one post, and would refuse the link with words about posts. A job
 * expands some of these (a profile whose reader lists its posts) and says of the others that it could not, so the detail names both ways.
 */
function requireOnePostOf(row: PlatformRow | undefined, url: URL): void {
  if (!standsForManyOf(row, url)) return;
  throw new ApiError(
    "invalid_url",
    `This ${
      row!.name
    } link stands for many posts (a profile, a feed or a list); \`post\` and \`download\` read one post. A job (POST /api/v1/jobs with {"urls": ["<link>"]}) runs the posts of the link where this service can list them, and says so where it cannot; or pass the links of its posts.`,
  );
}

/**
 * The reader of a link of the row: the service, as that file, for one of its media files; its `shapeReaders`' for the
 * link's shape; else the row's own (yt-dlp for OTHER).
 */
function readerOfRow(row: PlatformRow | undefined, url: URL): ReaderName {
  if (isMediaFileOf(row, url)) return "file";
  return row?.shapeReaders?.find(({ path }) => path.test(url.pathname))?.reader ?? row?.reader ?? "yt-dlp";
}

/** Every host a row's traffic goes to: its pages, short links, mirrors and media CDNs (each with its subdomains). */
function trafficHostsOf(row: PlatformRow): string[] {
  return [
    ...row.hosts,
    ...(row.shortLinks ?? []).map((shape) => shape.host),
    ...Object.keys(row.mirrors ?? {}),
    ...(row.mediaHosts ?? []),
    ...(row.mediaFiles ?? []).map((shape) => shape.host),
  ];
}

/** The table's look-ups over a list of platform modules: the service's is `platformList`'s (below). */
export function tableOf(rows: readonly PlatformRow[]) {
  /** The platform's row (of the list, or of a claimed site); undefined for OTHER (an extra page host of the operator's). */
  const rowOf = (platform: PlatformId): PlatformRow | undefined =>
    rows.find((row) => row.id === platform) ?? claimedRows.get(platform);
  return {
    rows,
    rowOf,
    /** For the detail of a 400 `unsupported_platform`. */
    supportedPlatformsText: rows.map((row) => row.name).join(", "),
    /**
     * The link as its platform's own site writes it: a link on a mirror or other front door of a row is read on
     * the row's canonical host (https, no user, password or port, path and query kept), so that the tools claim it and
     * the record's `url` names the platform; any other link is returned as it is.
     */
    canonicalLink: (url: URL): URL => canonicalOn(rows, url),
    /** The row whose short link `url` is (platforms/short-links.ts follows it); null for any other link. */
    shortLinkRow: (url: URL): PlatformRow | null => shortLinkOn(rows, url),
    /** The platform a page URL belongs to; extra hosts (operator configuration) are `OTHER`; else null. */
    detectPlatform: (url: URL, extraPageHosts: readonly string[]): PlatformId | null =>
      rowOn(rows, url)?.id ?? (extraPageHostOf(url, extraPageHosts) === null ? null : "OTHER"),
    /**
     * What the platform check calls the site of a page URL: its platform of the table, or the extra
     * page host entry it is on (a fixed set the operator chose, so it can name a metric's series).
     */
    siteOf: (url: URL, extraPageHosts: readonly string[]): string | null =>
      rowOn(rows, url)?.id ?? extraPageHostOf(url, extraPageHosts),
    /** Which reader reads the link (platforms/sources.ts builds one source per reader). */
    readerOf: (url: URL, platform: PlatformId): ReaderName => readerOfRow(rowOf(platform), url),
    /** What a reader throws for a link on its platform's hosts that it cannot read: the shapes the module knows. */
    unknownShape: (url: URL, platform: PlatformId): ApiError => unknownShapeOf(rowOf(platform), url),
    standsForMany: (url: URL, platform: PlatformId): boolean => standsForManyOf(rowOf(platform), url),
    requireOnePost: (url: URL, platform: PlatformId): void => requireOnePostOf(rowOf(platform), url),
    platformMediaCheck: (platform: PlatformId) => mediaCheckOf(rowOf(platform), platform),
    /** The hosts a platform's cookies and proxy are for (trafficHostsOf); none for a platform of no row. */
    trafficHosts: (platform: string): string[] => {
      const row = rows.find((each) => each.id === platform);
      return row === undefined ? [] : trafficHostsOf(row);
    },
    /** The listed platform whose pages, links or media a host serves; null for any other host. */
    platformOfHost: (hostname: string): PlatformId | null => {
      const host = normalizeHost(hostname);
      return rows.find((row) => trafficHostsOf(row).some((each) => hostMatches(host, each)))?.id ?? null;
    },
  };
}

/** The service's table: the list's platforms. */
export const table = tableOf(platformList);

export const {
  rowOf,
  supportedPlatformsText,
  canonicalLink,
  shortLinkRow,
  detectPlatform,
  siteOf,
  readerOf,
  unknownShape,
  standsForMany,
  requireOnePost,
  platformMediaCheck,
  trafficHosts,
  platformOfHost,
} = table;
