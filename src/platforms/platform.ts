// What a platform module holds (src/platforms/sites/<name>.ts, or <name>/platform.ts beside a
// reader of the service's own): everything the house knows of one platform, as data. The list
// (list.ts) is the array of the modules; the code that reads them (table.ts, sources.ts, the
// platform check, gallery-dl's arguments, the OpenAPI text, docs/api.md's table) names no platform.
import type { OwnReader } from "./own-reader.ts";

/**
 * Which source reads a platform's links (platforms/sources.ts builds one per name): a tool, X's reader (whose client
 * the tweet route shares), a reader of the service's own (`own`: the one its platform module holds, `ownReader`), or
 * for a link straight to one of the platform's media files (`mediaFiles`), the service as that file (`file`:
 * platforms/media-file.ts), whatever the platform's reader.
 */
export type ReaderName = "x" | "own" | "yt-dlp" | "yt-dlp+gallery-dl" | "file";

/** A path shape of a platform's links and the reader that reads it. */
export interface ShapeReader {
  path: RegExp;
  reader: Exclude<ReaderName, "file">;
}

export interface ShortLinkShape {
  host: string;
  /** Any path when absent. */
  path?: RegExp;
}

/** A media host of the platform's (with its subdomains) and the path shape of its photo files there. */
export interface MediaFileShape {
  host: string;
  path: RegExp;
}

/**
 * The shape of a sample link: a post (read as one post), a photo post (`photoShape`, gallery-dl's), a short link
 * (`shortLinks`, followed by the service), a mirror's link (`mirrors`, read on the canonical host), a link that
 * stands for many posts (`collectionShape`, or a playlist, channel or profile the tool expands), a link straight to
 * one of its photo files (`mediaFiles`, read as that file).
 */
export type SampleShape = "post" | "photo" | "short" | "mirror" | "collection" | "file";

/**
 * What claims a sample link: a tool's extractor (the tool that reads the link first, or for a platform with a reader
 * of its own, the tool whose extractor says the shape is one the platform has), or the service itself (a short link it
 * follows, a collection shape it answers with the job call, a link no tool reads).
 */
export type SampleClaimer = "yt-dlp" | "gallery-dl" | "service";

export interface Sample {
  shape: SampleShape;
  url: string;
  claimedBy: SampleClaimer;
  /** The tool's extractor that claims the link (its canonical link, for a mirror); null when the service claims it. */
  extractor: string | null;
}

export interface Platform<Id extends string = string> {
  id: Id;
  /** Human name for error messages and docs. */
  name: string;
  /** Page hosts; each matches itself and any subdomain (www., m., mobile., ...). */
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
   * The platform's photo files people paste a link of (an X photo on pbs.twimg.com, an art site's picture): `post`
   * answers such a link with a record of that one photo and `download` relays it (platforms/media-file.ts), where
   * the link names no post a reader could read.
   */
  mediaFiles?: readonly MediaFileShape[];
  /**
   * Which source reads a link: the service's own reader of the platform (its APIs or its pages), yt-dlp,
   * or yt-dlp with gallery-dl beside it (gallery-dl reads the photo-shaped links, and a post yt-dlp finds no video
   * in; platforms/tools/post-source.ts).
   */
  reader: Exclude<ReaderName, "file">;
  /**
   * The reader of the service's own that reads the platform's links, where `reader` is `own`: its settings and how it
   * is built (its folder's own-reader.ts). The wiring builds it, config.ts merges its settings.
   */
  ownReader?: OwnReader;
  /**
   * Path shapes of the platform's links that another reader reads than `reader` (X's broadcasts and Spaces, which
   * yt-dlp reads where X's own client reads posts): the first whose `path` matches names the link's reader.
   */
  shapeReaders?: readonly ShapeReader[];
  /**
   * Path shapes of the platform's links that stand for many posts (a profile, a feed, a list) which its reader does
   * not read as one post: `post` and `download` answer such a link with the job call for its posts (`requireOnePost`).
   */
  collectionShape?: RegExp;
  /**
   * The links that may stand for many posts to yt-dlp (a playlist, a channel, a set), which a job asks it to list
   * (platforms/tools/ytdlp/expansion.ts). A platform without it has none: a job of its posts runs yt-dlp once per post.
   */
  ytdlpPlaylist?: (url: URL) => boolean;
  /**
   * The links whose posts gallery-dl lists for a job (a profile): their path shape, and the path gallery-dl is handed
   * for the posts alone (`$1` the shape's first group), where the link itself stands for more to gallery-dl (a
   * profile's stories and highlights beside its posts).
   */
  galleryDlListing?: { shape: RegExp; postsPath: string };
  /** Path shapes of photo posts (which may hold videos too), read by gallery-dl first. */
  photoShape?: RegExp;
  /** The cookies that carry a signed-in session (what the site sets at sign-in), which the platform check reads. */
  sessionCookies?: readonly string[];
  /** gallery-dl `-o` options this platform's extractor needs (`extractor.<category>.<option>=<value>`). */
  galleryDlOptions?: readonly string[];
  /**
   * How the platform check names the service's own reader of the platform and what the operator does when it fails,
   * where its default (`the <name> reader`; update the service) does not say enough.
   */
  checkAdvice?: { reader: string; update: string };
  /** Whether yt-dlp asks the operator's proof-of-origin token server (PO_TOKEN_URL) for the platform's videos. */
  poTokens?: true;
  /** The name cobalt's API gives the platform (its `services`, a failure's `context.service`), where it is not the id in lower case. */
  cobaltName?: string;
  /**
   * The public post the platform check fetches by default (doctor/reference-posts.ts); null where
   * no link stays readable (the operator names one with PLATFORM_CHECK_POSTS).
   */
  referencePost: string | null;
  /** How the platform's posts are read and what of them, for docs/api.md's table (markdown). */
  readBy: string;
  /** What a caller must know of this platform's links, said in the OpenAPI text of `post` (none for most). */
  linkNote?: string;
  /** Sample links of every shape the platform accepts, which test/platforms/rows.test.ts runs through the tools. */
  samples: readonly Sample[];
}

/** The readers that are tools: every other reader is the service's own. */
const toolReaders: ReadonlySet<ReaderName> = new Set(["yt-dlp", "yt-dlp+gallery-dl"]);

/** Whether the service itself reads the platform's posts (its own client of the platform's pages or APIs). */
export const readByService = (platform: Platform): boolean => !toolReaders.has(platform.reader);

/** Mirror hosts that all stand for one canonical host. */
export const mirrorsOf = (canonical: string, hosts: readonly string[]): Readonly<Record<string, string>> =>
  Object.fromEntries(hosts.map((host) => [host, canonical]));

/** `label.<suffix>` for each suffix: a platform's country domains. */
export const countryDomains = (label: string, suffixes: readonly string[]): string[] =>
  suffixes.map((suffix) => `${label}.${suffix}`);

/** Samples of one shape read by one tool's extractor. */
export const samplesOf = (
  shape: SampleShape,
  claimedBy: SampleClaimer,
  extractor: string | null,
  urls: readonly string[],
): Sample[] => urls.map((url) => ({ shape, url, claimedBy, extractor }));
