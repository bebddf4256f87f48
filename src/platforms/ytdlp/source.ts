// Page descriptions from yt-dlp, kept briefly so that `post` followed by `download` of the same
// link extracts once: the download then only asks yt-dlp to pick formats from the kept
// description (`--load-info-json`), which needs no network.
import { createTtlCache } from "../../util/ttl-cache.ts";
import type { YtdlpInfo } from "./info.ts";
import { extractInfo } from "./run.ts";

export interface PageSourceOptions {
  ytdlpPath: string;
  timeoutMs: number;
  socketTimeoutSec: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
  now?: () => number;
  /** Told when a yt-dlp process starts; the returned function when it has ended (metrics). */
  onChild?: () => () => void;
}

export interface PageSource {
  /** The page's description: formats, title, author, duration, thumbnails. */
  info(page: URL, signal?: AbortSignal): Promise<YtdlpInfo>;
  /** The description with `selector` applied: the chosen formats in `requested_formats`, or at the top level. */
  select(page: URL, selector: string, signal?: AbortSignal): Promise<YtdlpInfo>;
}

export function createPageSource(options: PageSourceOptions): PageSource {
  const cache = createTtlCache<YtdlpInfo>({ maxEntries: options.cacheMaxEntries, now: options.now ?? Date.now });

  async function run(page: URL, extra: { format?: string; infoJson?: string; signal?: AbortSignal }): Promise<YtdlpInfo> {
    const done = options.onChild?.();
    try {
      return await extractInfo(page.href, { ytdlpPath: options.ytdlpPath, timeoutMs: options.timeoutMs, socketTimeoutSec: options.socketTimeoutSec, ...extra });
    } finally {
      done?.();
    }
  }

  async function fresh(page: URL, format: string | undefined, signal?: AbortSignal): Promise<YtdlpInfo> {
    const info = await run(page, { format, signal });
    cache.set(page.href, info, options.cacheTtlMs);
    return info;
  }

  return {
    async info(page, signal) {
      return cache.get(page.href) ?? fresh(page, undefined, signal);
    },
    async select(page, selector, signal) {
      const known = cache.get(page.href);
      if (!known) return fresh(page, selector, signal);
      return run(page, { format: selector, infoJson: JSON.stringify(known), signal });
    },
  };
}
