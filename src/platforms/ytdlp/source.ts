// Page descriptions from yt-dlp, kept briefly so that `post` followed by `download` of the same
// link extracts once: the download then only asks yt-dlp to pick formats from the kept
// description (`--load-info-json`), which needs no network.
import type { EgressGate } from "../../media/egress-gate.ts";
import { ApiError } from "../../http/problem.ts";
import { createTtlCache } from "../../util/ttl-cache.ts";
import { withCookieCopy } from "./cookie-file.ts";
import { itemDescription, type YtdlpInfo } from "./info.ts";
import { extractInfo } from "./run.ts";

export interface PageSourceOptions {
  ytdlpPath: string;
  timeoutMs: number;
  socketTimeoutSec: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
  /** Most entries of a page with several media that a description holds (PLAYLIST_MAX_ITEMS). */
  maxItems: number;
  now?: () => number;
  /** Told when a yt-dlp process starts; the returned function when it has ended (metrics). */
  onChild?: () => () => void;
  /** The egress gate every run of yt-dlp fetches through (tests of the mapping may leave it out). */
  gate?: EgressGate;
  /** yt-dlp's `--js-runtimes` value; null for none. */
  jsRuntime?: string | null;
  /** The operator's Netscape cookie file; every page fetch gets a private copy of it. */
  cookiesFile?: string;
  /** Told when a platform refused this server (502 upstream_blocked), for metrics. */
  onBlocked?: (page: URL) => void;
}

export interface PageSource {
  /** The page's description: formats, title, author, duration, thumbnails. */
  info(page: URL): Promise<YtdlpInfo>;
  /**
   * The description of item `item` (1-based; see postItems) with `selector` applied: the chosen
   * formats in `requested_formats`, or at the top level. Only that item gets formats chosen, so
   * a selector that fits it need not fit the others.
   */
  select(page: URL, selector: string, signal?: AbortSignal, item?: number): Promise<YtdlpInfo>;
}

/** A description this large (a page with thousands of formats) is used once and not kept. */
const maxKeptBytes = 1024 * 1024;

export function createPageSource(options: PageSourceOptions): PageSource {
  const cache = createTtlCache<{ info: YtdlpInfo; json: string }>({ maxEntries: options.cacheMaxEntries, now: options.now ?? Date.now });
  const inFlight = new Map<string, Promise<YtdlpInfo>>();

  const everyItem = `1:${options.maxItems}`;

  async function run(page: URL, extra: { playlistItems?: string; format?: string; infoJson?: string; signal?: AbortSignal }): Promise<YtdlpInfo> {
    const common = { ytdlpPath: options.ytdlpPath, timeoutMs: options.timeoutMs, socketTimeoutSec: options.socketTimeoutSec, jsRuntime: options.jsRuntime };
    // A load from the kept description needs no network: no gate session, no cookies.
    const networked = extra.infoJson === undefined;
    const session = networked ? await options.gate?.session() : undefined;
    const done = options.onChild?.();
    try {
      return await withCookieCopy(networked ? options.cookiesFile : undefined, (cookiesFile) =>
        extractInfo(page.href, { ...common, cookiesFile, proxy: session?.proxyUrl, ...extra }),
      );
    } catch (error) {
      // The page led yt-dlp to an address it may not fetch: say that, not how yt-dlp failed.
      const refusal = session?.refusal();
      if (refusal) throw refusal;
      if (error instanceof ApiError && error.code === "upstream_blocked") options.onBlocked?.(page);
      throw error;
    } finally {
      done?.();
      session?.close();
    }
  }

  async function fresh(page: URL, playlistItems: string, format: string | undefined, signal?: AbortSignal): Promise<YtdlpInfo> {
    const info = await run(page, { playlistItems, format, signal });
    // A run for one item of a playlist does not describe the whole post, so it is not kept.
    if (playlistItems !== everyItem && info._type === "playlist") return info;
    const json = JSON.stringify(info);
    if (json.length <= maxKeptBytes) cache.set(page.href, { info, json }, options.cacheTtlMs);
    return info;
  }

  return {
    info(page) {
      const kept = cache.get(page.href);
      if (kept) return Promise.resolve(kept.info);
      // Equal look-ups at the same time share one yt-dlp run. It does not end when one caller
      // goes away, since others may wait for it; its time cap bounds it.
      const running = inFlight.get(page.href) ?? fresh(page, everyItem, undefined).finally(() => inFlight.delete(page.href));
      inFlight.set(page.href, running);
      return running;
    },
    async select(page, selector, signal, item = 1) {
      const kept = cache.get(page.href);
      const described = kept && itemDescription(kept.info, item);
      if (!kept || !described) return fresh(page, String(item), selector, signal);
      const infoJson = described === kept.info ? kept.json : JSON.stringify(described);
      return run(page, { format: selector, infoJson, signal });
    },
  };
}
