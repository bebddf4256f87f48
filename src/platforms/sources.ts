// Which source reads a link: its platform row's `reader` (table.ts), one line per reader. A page of
// an extra host of the operator's (`OTHER`) is yt-dlp's. X's and Bluesky's sources also say which
// posts a link stands for in a job (Expands): its author's thread.
import { galleryReader } from "./gallerydl/reader.ts";
import type { GallerySource } from "./gallerydl/source.ts";
import { fallbackSource, isPhotoShaped, ytdlpThenGallery } from "./post-source.ts";
import type { Expands, Link, Source } from "./source.ts";
import { type ReaderName, rowOf } from "./table.ts";
import { xReader } from "./x/reader.ts";
import type { TweetSource } from "./x/source.ts";
import { ytdlpReader } from "./ytdlp/reader.ts";
import type { PageSource } from "./ytdlp/source.ts";

/** What the sources read through: X's client, Bluesky's and Xiaohongshu's sources, yt-dlp's and gallery-dl's descriptions. */
export interface SourceClients {
  tweets: TweetSource;
  bluesky: Source;
  /** The threads of X and of Bluesky (x/threads.ts, bluesky/threads.ts). */
  threads: { x: Expands; bluesky: Expands };
  xiaohongshu: Source;
  pages: PageSource;
  galleries: GallerySource;
}

/** The source of a link of a supported platform. */
export type SourceOf = (link: Link) => Source;

export function createSources(clients: SourceClients): SourceOf {
  const ytdlp = ytdlpReader(clients.pages);
  const gallery = galleryReader(clients.galleries);
  const ytdlpThenGalleryDl = fallbackSource(ytdlp, gallery, ytdlpThenGallery);
  const x = withThreads(xReader(clients.tweets, ytdlp), clients.threads.x);
  const bluesky = withThreads(clients.bluesky, clients.threads.bluesky);
  const readers: Record<ReaderName, (link: Link) => Source> = {
    x: () => x,
    bluesky: () => bluesky,
    xiaohongshu: () => clients.xiaohongshu,
    "yt-dlp": () => ytdlp,
    // A photo-shaped link goes to gallery-dl alone.
    "yt-dlp+gallery-dl": (link) => (isPhotoShaped(link.url, link.platform) ? gallery : ytdlpThenGalleryDl),
  };
  return (link) => readers[rowOf(link.platform)?.reader ?? "yt-dlp"](link);
}

const withThreads = (source: Source, threads: Expands): Source & Expands => ({ ...source, expand: threads.expand });
