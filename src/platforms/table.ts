// The platform table of docs/api.md: which page hosts belong to which platform. Adding a
// platform is one row. A page host matches itself and any subdomain (www., m., mobile., ...).
import { extraHostEndpoint, portOf } from "../media/egress.ts";
import { ApiError } from "../http/problem.ts";
import type { Claim } from "./claims.ts";
import type { ClaimedPlatformId, ListedPlatformId, PlatformId } from "./records.ts";

/** Which source reads a platform's links (platforms/sources.ts builds one per name). */
export type ReaderName = "x" | "bluesky" | "xiaohongshu" | "threads" | "yt-dlp" | "yt-dlp+gallery-dl";

export interface ShortLinkShape {
  host: string;
  /** Any path when absent. */
  path?: RegExp;
}

export interface PlatformRow {
  id: Exclude<ListedPlatformId, "OTHER"> | ClaimedPlatformId;
  /** Human name for error messages and docs. */
  name: string;
  hosts: readonly string[];
  /**
   * Other front doors whose links stand for the platform's own (the fix-embed mirrors people share, hosts the tools
   * do not claim): each host (with its subdomains) and the canonical host its links are read on, path kept.
   */
  mirrors?: Readonly<Record<string, string>>;
  /**
   * The platform's short links, which the service follows to the post they stand for (platforms/short-links.ts):
   * a host (with its subdomains) and, where that host serves other pages too, the path shape of its short links.
   */
  shortLinks?: readonly ShortLinkShape[];
  /** The platform's media CDN hosts (each with its subdomains), from which a post's files are relayed as they are. */
  mediaHosts?: readonly string[];
  /**
   * Which source reads a link: X's APIs, Bluesky's AppView, Xiaohongshu's note pages, Threads' post pages, yt-dlp,
   * or yt-dlp with gallery-dl beside it (gallery-dl reads the photo-shaped links, and a post yt-dlp finds no video
   * in; platforms/post-source.ts).
   */
  reader: ReaderName;
  /**
   * Path shapes of the row's links that stand for many posts (a profile, a feed, a list) which its reader does not
   * read as one post: `post` and `download` answer such a link with the job call for its posts (`requireOnePost`).
   */
  collectionShape?: RegExp;
  /** Path shapes of photo posts (which may hold videos too), read by gallery-dl first. */
  photoShape?: RegExp;
  /**
   * The public post the platform check fetches by default (doctor/reference-posts.ts); null where
   * no link stays readable (the operator names one with PLATFORM_CHECK_POSTS).
   */
  referencePost: string | null;
}

/** Mirror hosts that all stand for one canonical host. */
const mirrorsOf = (canonical: string, hosts: readonly string[]) =>
  Object.fromEntries(hosts.map((host) => [host, canonical]));

const countryDomains = (label: string, suffixes: readonly string[]) => suffixes.map((s) => `${label}.${s}`);

// Explicit country lists rather than a `label.<any tld>` pattern, so that a look-alike domain
// someone else owns never counts as the platform.
const pinterestSuffixes = [
  "com",
  "co.uk",
  "ca",
  "com.au",
  "de",
  "fr",
  "es",
  "it",
  "nl",
  "pt",
  "ch",
  "at",
  "co.at",
  "be",
  "ie",
  "dk",
  "se",
  "hu",
  "ru",
  "jp",
  "kr",
  "co.kr",
  "in",
  "co.in",
  "id",
  "ph",
  "th",
  "tw",
  "vn",
  "com.vn",
  "nz",
  "co.nz",
  "mx",
  "com.mx",
  "cl",
  "co",
  "pe",
  "com.pe",
  "ec",
  "com.ec",
  "com.uy",
  "com.py",
  "com.bo",
  "info",
  "uk",
] as const;
const amazonSuffixes = [
  "com",
  "ca",
  "com.mx",
  "com.br",
  "co.uk",
  "de",
  "fr",
  "it",
  "es",
  "nl",
  "se",
  "pl",
  "com.be",
  "com.tr",
  "ae",
  "sa",
  "eg",
  "in",
  "sg",
  "co.jp",
  "com.au",
  "cn",
  "ie",
  "co.za",
] as const;

// Reference posts are public posts from yt-dlp's own extractor tests (old, famous, kept working
// upstream; X's first post for X), so a failed check says more about the platform than the post.
export const platformTable: readonly PlatformRow[] = [
  {
    id: "X",
    name: "X (Twitter)",
    hosts: ["twitter.com", "x.com"],
    // FxEmbed's, BetterTwitFix's and their forks' hosts, as cobalt, FxEmbed and people's share links name them.
    mirrors: mirrorsOf("x.com", [
      "fxtwitter.com",
      "fixupx.com",
      "vxtwitter.com",
      "fixvx.com",
      "twittpr.com",
    ]),
    reader: "x",
    // A profile and its tabs (handles are 1-15 word characters), and a list.
    collectionShape: /^\/(?:\w{1,15}(?:\/(?:media|with_replies|highlights|likes))?|i\/lists\/\d+)\/?$/,
    referencePost: "https://x.com/jack/status/20",
  },
  {
    id: "INSTAGRAM",
    name: "Instagram",
    hosts: ["instagram.com"],
    mirrors: mirrorsOf("www.instagram.com", [
      "ddinstagram.com",
      "kkinstagram.com",
      "vxinstagram.com",
      "instagramez.com",
      "instagr.am",
    ]),
    mediaHosts: ["cdninstagram.com", "fbcdn.net"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /^\/(?:[^/]+\/)?p\/[^/]+/,
    referencePost: "https://www.instagram.com/p/aye83DjauH/",
  },
  {
    id: "YOUTUBE",
    name: "YouTube",
    hosts: ["youtube.com", "youtu.be", "youtube-nocookie.com", "youtubekids.com"],
    reader: "yt-dlp",
    referencePost: "https://www.youtube.com/watch?v=jNQXAC9IVRw",
  },
  {
    id: "TIKTOK",
    name: "TikTok",
    hosts: ["tiktok.com"],
    shortLinks: [{ host: "vm.tiktok.com" }, { host: "vt.tiktok.com" }, { host: "tiktok.com", path: /^\/t\/\w+/ }],
    mirrors: mirrorsOf("www.tiktok.com", ["tnktok.com", "vxtiktok.com", "tiktxk.com", "tfxktok.com"]),
    mediaHosts: ["tiktokcdn.com", "tiktokcdn-us.com", "tiktokcdn-eu.com", "tiktokv.com", "ibyteimg.com", "byteimg.com"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /\/photo\/\d+/,
    referencePost: "https://www.tiktok.com/@leenabhushan/video/6748451240264420610",
  },
  {
    id: "REDDIT",
    name: "Reddit",
    hosts: ["reddit.com", "redd.it"],
    // redd.it/<id> and a post's share link; the media hosts' files (i.redd.it/<name>.jpg) have a dot in them.
    shortLinks: [{ host: "redd.it", path: /^\/\w+\/?$/ }, { host: "reddit.com", path: /^\/r\/\w+\/s\/\w+/ }],
    mediaHosts: ["i.redd.it", "preview.redd.it", "v.redd.it", "redditmedia.com"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /^\/gallery\/\w+|\.(?:jpe?g|png|webp|gif)$/i,
    referencePost: "https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
  },
  {
    id: "FACEBOOK",
    name: "Facebook",
    hosts: ["facebook.com", "fb.watch"],
    shortLinks: [{ host: "fb.watch" }, { host: "facebook.com", path: /^\/share\// }],
    mediaHosts: ["fbcdn.net"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /\/photos?(?:\/|\.php|$)/,
    referencePost: "https://www.facebook.com/radiokicksfm/videos/3676516585958356/",
  },
  {
    id: "PINTEREST",
    name: "Pinterest",
    hosts: [...countryDomains("pinterest", pinterestSuffixes), "pin.it"],
    shortLinks: [{ host: "pin.it" }],
    mediaHosts: ["pinimg.com"],
    reader: "yt-dlp+gallery-dl",
    referencePost: "https://www.pinterest.com/pin/664281013778109217/",
  },
  {
    id: "AMAZON",
    name: "Amazon",
    hosts: countryDomains("amazon", amazonSuffixes),
    shortLinks: [{ host: "amzn.to" }, { host: "amzn.eu" }, { host: "a.co" }],
    reader: "yt-dlp",
    referencePost: "https://www.amazon.co.uk/dp/B098XNCHLD/",
  },
  {
    id: "VIMEO",
    name: "Vimeo",
    hosts: ["vimeo.com"],
    mirrors: { "m.vimeo.com": "vimeo.com" },
    reader: "yt-dlp",
    referencePost: "https://vimeo.com/76979871",
  },
  {
    id: "DAILYMOTION",
    name: "Dailymotion",
    hosts: ["dailymotion.com", "dai.ly"],
    reader: "yt-dlp",
    referencePost: "https://www.dailymotion.com/video/x2iuewm",
  },
  {
    id: "BLUESKY",
    name: "Bluesky",
    hosts: ["bsky.app"],
    mirrors: mirrorsOf("bsky.app", ["bskx.app", "fxbsky.app", "bskyx.app"]),
    mediaHosts: ["cdn.bsky.app", "video.bsky.app"],
    reader: "bluesky",
    collectionShape: /^\/profile\/[^/]+(?:\/(?:feed|lists)\/[^/]+)?\/?$/,
    referencePost: "https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g",
  },
  {
    id: "BILIBILI",
    name: "Bilibili",
    hosts: ["bilibili.com", "bilibili.tv", "b23.tv"],
    shortLinks: [{ host: "b23.tv" }],
    // The mobile site's links are the main site's paths, which no tool claims on m.bilibili.com.
    mirrors: { "m.bilibili.com": "www.bilibili.com" },
    mediaHosts: ["hdslb.com"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /^\/opus\/\d+/,
    referencePost: "https://www.bilibili.com/video/BV13x41117TL",
  },
  {
    id: "LOOM",
    name: "Loom",
    hosts: ["loom.com"],
    reader: "yt-dlp",
    referencePost: "https://www.loom.com/share/43d05f362f734614a2e81b4694a3a523",
  },
  {
    id: "NEWGROUNDS",
    name: "Newgrounds",
    hosts: ["newgrounds.com"],
    mediaHosts: ["ngfiles.com"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /^\/art\/view\//,
    referencePost: "https://www.newgrounds.com/portal/view/297383",
  },
  {
    id: "OKRU",
    name: "OK.ru",
    hosts: ["ok.ru", "odnoklassniki.ru"],
    mirrors: { "m.ok.ru": "ok.ru", "mobile.ok.ru": "ok.ru" },
    reader: "yt-dlp",
    referencePost: "https://ok.ru/video/1484130554189",
  },
  {
    id: "RUTUBE",
    name: "Rutube",
    hosts: ["rutube.ru"],
    reader: "yt-dlp",
    referencePost: "https://rutube.ru/video/3eac3b4561676c17df9132a9a1e62e3e/",
  },
  {
    id: "SNAPCHAT",
    name: "Snapchat",
    hosts: ["snapchat.com"],
    shortLinks: [{ host: "t.snapchat.com" }],
    reader: "yt-dlp",
    referencePost: "https://www.snapchat.com/spotlight/W7_EDlXWTBiXAEEniNoMPwAAYYWtidGhudGZpAX1TKn0JAX1TKnXJAAAAAA",
  },
  {
    id: "SOUNDCLOUD",
    name: "SoundCloud",
    hosts: ["soundcloud.com"],
    shortLinks: [{ host: "on.soundcloud.com" }],
    reader: "yt-dlp",
    referencePost: "https://soundcloud.com/ethmusic/lostin-powers-she-so-heavy",
  },
  {
    id: "STREAMABLE",
    name: "Streamable",
    hosts: ["streamable.com"],
    reader: "yt-dlp",
    referencePost: "https://streamable.com/dnd1",
  },
  // A Tumblr post's link does not say whether it holds a video: yt-dlp first, gallery-dl for photos.
  {
    id: "TUMBLR",
    name: "Tumblr",
    hosts: ["tumblr.com"],
    shortLinks: [{ host: "tmblr.co" }],
    mediaHosts: ["media.tumblr.com"],
    reader: "yt-dlp+gallery-dl",
    referencePost: "https://tatianamaslanydaily.tumblr.com/post/54196191430/orphan-black-dvd-extra-behind-the-scenes",
  },
  {
    id: "TWITCH",
    name: "Twitch",
    hosts: ["twitch.tv"],
    reader: "yt-dlp",
    referencePost: "https://clips.twitch.tv/FaintLightGullWholeWheat",
  },
  {
    id: "VK",
    name: "VK",
    hosts: ["vk.com", "vk.ru", "vkvideo.ru"],
    mediaHosts: ["userapi.com"],
    reader: "yt-dlp+gallery-dl",
    photoShape: /^\/(?:album|wall)-?\d+_\d+/,
    referencePost: "https://vk.com/video205387401_165548505",
  },
  // Read from the note's page by the service itself: yt-dlp reads only a note's video, gallery-dl
  // none. No default check: a note opens only with a link's xsec_token, which expires, so any
  // fixed link would soon report the platform broken.
  {
    id: "XIAOHONGSHU",
    name: "Xiaohongshu (RedNote)",
    hosts: ["xiaohongshu.com", "xhslink.com"],
    mediaHosts: ["xhscdn.com", "xhscdn.net"],
    reader: "xiaohongshu",
    collectionShape: /^\/user\/profile\/\w+\/?$/,
    referencePost: null,
  },
  // Read from the post's page by the service itself: no tool reads Threads. No default check yet:
  // the reader is tested against a local platform built from a recorded page and public readers'
  // code, not yet against the site, whose answer to this server is not known.
  {
    id: "THREADS",
    name: "Threads",
    hosts: ["threads.com", "threads.net"],
    mediaHosts: ["cdninstagram.com", "fbcdn.net"],
    reader: "threads",
    collectionShape: /^\/@[\w.]+\/?$/,
    referencePost: null,
  },
];

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
  const row: PlatformRow = claim.ytdlp === null
    ? { id, name, hosts: [], reader: "yt-dlp+gallery-dl", photoShape: /^/, referencePost: url.href }
    : {
      id,
      name,
      hosts: [],
      reader: claim.gallerydl === null ? "yt-dlp" : "yt-dlp+gallery-dl",
      referencePost: url.href,
    };
  claimedRows.set(id, row);
  return row;
}

/** The platform's row (of the table, or of a claimed site); undefined for OTHER (an extra page host of the operator's). */
export function rowOf(platform: PlatformId): PlatformRow | undefined {
  return platformTable.find((row) => row.id === platform) ?? claimedRows.get(platform);
}

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

/** The canonical host a mirror host of a row stands for; null when the host is no row's mirror. */
function mirroredHost(hostname: string): string | null {
  for (const row of platformTable) {
    const mirror = Object.keys(row.mirrors ?? {}).find((host) => hostMatches(hostname, host));
    if (mirror !== undefined) return row.mirrors![mirror]!;
  }
  return null;
}

/**
 * The link as its platform's own site writes it: a link on a mirror or other front door of a row is read on
 * the row's canonical host (https, no port, path and query kept), so that the tools claim it and the record's
 * `url` names the platform; any other link is returned as it is.
 */
export function canonicalLink(url: URL): URL {
  const canonical = mirroredHost(normalizeHost(url.hostname));
  if (canonical === null) return url;
  const link = new URL(url.href);
  link.protocol = "https:";
  link.port = "";
  link.hostname = canonical;
  return link;
}

/** The row whose short link `url` is (platforms/short-links.ts follows it); null for any other link. */
export function shortLinkRow(url: URL): PlatformRow | null {
  const hostname = normalizeHost(url.hostname);
  const isShort = (shape: ShortLinkShape) =>
    hostMatches(hostname, shape.host) && (shape.path?.test(url.pathname) ?? true);
  return platformTable.find((row) => row.shortLinks?.some(isShort)) ?? null;
}

function tablePlatform(url: URL): PlatformRow["id"] | null {
  const hostname = normalizeHost(canonicalLink(url).hostname);
  const onHost = (row: PlatformRow) =>
    [...row.hosts, ...(row.shortLinks ?? []).map((shape) => shape.host)].some((host) => hostMatches(hostname, host));
  return platformTable.find(onHost)?.id ?? null;
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
 * Throws 400 invalid_url for a link of the row's `collectionShape` (a profile, a feed, a list), naming the job call
 * that runs many posts: the row's reader reads one post, and would refuse the link with words about posts. A job
 * expands some of these (a Bluesky profile) and says of the others that it could not, so the detail names both ways.
 */
export function requireOnePost(url: URL, platform: PlatformId): void {
  if (!standsForMany(url, platform)) return;
  throw new ApiError(
    "invalid_url",
    `This ${
      rowOf(platform)!.name
    } link stands for many posts (a profile, a feed or a list); \`post\` and \`download\` read one post. A job (POST /api/v1/jobs with {"urls": ["<link>"]}) runs the posts of the link where this service can list them, and says so where it cannot; or pass the links of its posts.`,
  );
}

/** Whether the link is of its row's `collectionShape`: a profile, a feed or a list, which no reader reads as one post. */
export function standsForMany(url: URL, platform: PlatformId): boolean {
  return rowOf(platform)?.collectionShape?.test(url.pathname) === true;
}

/**
 * Throws 403 host_not_allowed unless `url` is an https file on one of the platform's media hosts
 * (no user, password or port): a post's files are relayed from there and from nowhere else.
 */
export function platformMediaCheck(platform: PlatformId): (url: URL, what?: string) => void {
  const row = rowOf(platform);
  const hosts = row?.mediaHosts ?? [];
  return (url, what = "A file of the post") => {
    const plain = url.protocol === "https:" && url.username === "" && url.password === "" && url.port === "";
    if (plain && hosts.some((host) => hostMatches(normalizeHost(url.hostname), host))) return;
    throw new ApiError(
      "host_not_allowed",
      `${what} is on ${url.host}, which is not a media host of ${row?.name ?? platform} this server fetches from.`,
    );
  };
}
