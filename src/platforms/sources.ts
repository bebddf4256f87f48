// Which source reads a link: its platform row's `reader` (table.ts), one line per reader; a reader of
// the service's own is its platform module's (`ownReader`). A page of an extra host of the operator's
// (`OTHER`) is yt-dlp's. X's source, and an own reader's that expands, also say which posts a link stands for in a job
// (Expands): a post's author's thread, a profile's posts; yt-dlp's
// say it for playlists, channels and profiles, also where gallery-dl reads beside it, but for the profiles a platform
// module says gallery-dl lists.
import { ApiError } from "../http/problem.ts";
import { galleryExpansion } from "./tools/gallerydl/expansion.ts";
import { galleryReader } from "./tools/gallerydl/reader.ts";
import type { GalleryClient } from "./tools/gallerydl/client.ts";
import { knownShapesText } from "./known-shapes.ts";
import { mediaFileSource } from "./media-file.ts";
import { fallbackSource, isPhotoShaped, ytdlpThenGallery } from "./tools/post-source.ts";
import { isEmptyPost, nothingToDownload } from "./post-errors.ts";
import type { Ask, Expands, Link, Source } from "./source.ts";
import type { ReaderName } from "./platform.ts";
import { readerOf, rowOf } from "./table.ts";
import { xReader } from "./x/reader.ts";
import type { TweetClient } from "./x/client.ts";
import type { Outbound } from "../net/outbound.ts";
import { ytdlpReader } from "./tools/ytdlp/reader.ts";
import type { PageClient } from "./tools/ytdlp/client.ts";

/** What the sources read through: the clients and sources of the service's own readers, yt-dlp's and gallery-dl's descriptions. */
export interface SourceClients {
  tweets: TweetClient;
  /** The X reader's client to X's video host, which a video's captions are read through. */
  xVideoHost: Outbound;
  /** What a job expands X's links into (x/threads.ts): a post's thread, a profile's posts. */
  xExpansion: Expands;
  /** The sources of the readers of the service's own, by their platform's id (each platform module's `ownReader`). */
  own: ReadonlyMap<string, Source>;
  pages: PageClient;
  galleries: GalleryClient;
}

/** The source of a link of a supported platform. */
export type SourceOf = (link: Link) => Source;

/** `ask` is how a source that hands a link on asks the other (the service's one Ask). */
export function createSources(clients: SourceClients, ask: Ask): SourceOf {
  const ytdlp = ytdlpReader(clients.pages);
  const gallery = galleryReader(clients.galleries);
  // What a link stands for in a job is yt-dlp's to say (a profile of a platform yt-dlp pages through), also where
  // gallery-dl reads its posts, but for a profile gallery-dl lists.
  const ytdlpThenGalleryDl = withExpansion(
    fallbackSource(ytdlp, gallery, ytdlpThenGallery),
    firstOf(galleryExpansion(clients.galleries), listsOnly(ytdlp)),
  );
  const x = withExpansion(xReader(clients.tweets, ytdlp, ask, clients.xVideoHost), clients.xExpansion);
  const readers: Record<ReaderName, (link: Link) => Source> = {
    x: () => x,
    own: (link) => ownSource(clients.own, link),
    "yt-dlp": () => ytdlp,
    // A photo-shaped link goes to gallery-dl alone.
    "yt-dlp+gallery-dl": (link) => (isPhotoShaped(link.url, link.platform) ? gallery : ytdlpThenGalleryDl),
    file: () => mediaFileSource,
  };
  return (link) => heldToRecordRule(readers[readerOf(link.url, link.platform)](link));
}

function ownSource(own: ReadonlyMap<string, Source>, link: Link): Source {
  const source = own.get(link.platform);
  // A platform module that says "own" without an `ownReader` is a mistake of the house, not the caller's.
  if (source === undefined) throw new Error(`no reader of the service's own reads ${link.platform}`);
  return source;
}

/**
 * The one rule of every record, whichever source made it (post-errors.ts): a post with no item to
 * download and no text is no answer (404 no_media). A source whose tool says why (gallery-dl's
 * warnings) answers before this, in its own words.
 */
function heldToRecordRule(source: Source | (Source & Expands)): Source {
  return {
    ...("expand" in source ? { expand: heldExpansion(source), ...mayExpandOf(source) } : {}),
    tools: (link) => source.tools(link),
    extracts: source.extracts,
    async describe(link, options) {
      const record = await namingShapes(link, source.describe(link, options));
      if (isEmptyPost(record)) throw nothingToDownload();
      return record;
    },
    plan: (link, wanted, asker) => namingShapes(link, source.plan(link, wanted, asker)),
    ...(source.captions ? { captions: source.captions.bind(source) } : {}),
  };
}

/**
 * A source's word that it found no post at the link (`unsupported_url`: a tool's extractor for the platform does not
 * take the link's shape, and its generic one found nothing on the page) names the shapes the platform's module knows.
 */
async function namingShapes<T>(link: Link, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const row = rowOf(link.platform);
    if (!(error instanceof ApiError) || error.code !== "unsupported_url" || !row?.samples.length) throw error;
    throw new ApiError("unsupported_url", `${error.message} ${knownShapesText(row, link.url)}`, {
      cause: error.cause ?? error,
    });
  }
}

/** The rule of every record for the one post an expansion read: an empty one is left for the item to read and tell. */
const heldExpansion = (source: Expands): Expands["expand"] => async (link, limit, signal, threads) => {
  const expansion = await source.expand(link, limit, signal, threads);
  return expansion !== null && "post" in expansion && isEmptyPost(expansion.post) ? null : expansion;
};

/**
 * yt-dlp's expansion where gallery-dl reads beside it: the one post yt-dlp read is left for the item, which may
 * need gallery-dl too (tools/post-source.ts); the posts of a playlist stand.
 */
const listsOnly = (source: Expands): Expands => ({
  ...mayExpandOf(source),
  expand: async (link, limit, signal, threads) => {
    const expansion = await source.expand(link, limit, signal, threads);
    return expansion !== null && "post" in expansion ? null : expansion;
  },
});

const withExpansion = (source: Source, expands: Expands): Source & Expands => ({
  ...source,
  expand: expands.expand,
  ...mayExpandOf(expands),
});

/** An expansion's `mayExpand`, where it has one, to carry over to what wraps it. */
const mayExpandOf = (expands: Expands): Pick<Expands, "mayExpand"> =>
  expands.mayExpand ? { mayExpand: expands.mayExpand } : {};

/** Whether `expands` may read `link`: where it does not say, it may. */
const mayRead = (expands: Expands, link: Link) => expands.mayExpand?.(link) ?? true;

/** What the first of two expansions says a link stands for, or where it says nothing (null), the second. */
const firstOf = (first: Expands, second: Expands): Expands => ({
  mayExpand: (link) => mayRead(first, link) || mayRead(second, link),
  expand: async (link, limit, signal, threads) =>
    (await first.expand(link, limit, signal, threads)) ?? second.expand(link, limit, signal, threads),
});
