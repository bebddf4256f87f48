// Page descriptions from yt-dlp, kept briefly so that `post` followed by `download` of the same
// link extracts once. A download picks its formats from the description in-process
// (format-selector.ts), so it runs yt-dlp at most once, and not at all after `post`; a selector
// that needs more of yt-dlp's grammar is applied by yt-dlp to the kept description
// (`--load-info-json`, no network).
import { createTtlCache } from "../../util/ttl-cache.ts";
import { parseFormatSelector, selectFormats } from "./format-selector.ts";
import { entryFormats, mainEntry, type YtdlpFormat, type YtdlpInfo } from "./info.ts";
import { extractInfo } from "./run.ts";
import { chosenFormats } from "./selection.ts";

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
  info(page: URL): Promise<YtdlpInfo>;
  /** The description and the formats `selector` picks from it (one, or a video and an audio one). */
  select(page: URL, selector: string, signal?: AbortSignal): Promise<{ info: YtdlpInfo; formats: YtdlpFormat[] }>;
}

// yt-dlp tries such formats over the network before it picks one; only yt-dlp can choose there.
const selectableInProcess = (format: YtdlpFormat) => format.has_drm !== true && !("__needs_testing" in format);

/** A description this large (a page with thousands of formats) is used once and not kept. */
const maxKeptBytes = 1024 * 1024;

export function createPageSource(options: PageSourceOptions): PageSource {
  const cache = createTtlCache<{ info: YtdlpInfo; json: string }>({ maxEntries: options.cacheMaxEntries, now: options.now ?? Date.now });
  const inFlight = new Map<string, Promise<YtdlpInfo>>();

  async function run(page: URL, extra: { format?: string; infoJson?: string; signal?: AbortSignal }): Promise<YtdlpInfo> {
    const done = options.onChild?.();
    try {
      return await extractInfo(page.href, { ytdlpPath: options.ytdlpPath, timeoutMs: options.timeoutMs, socketTimeoutSec: options.socketTimeoutSec, ...extra });
    } finally {
      done?.();
    }
  }

  async function fresh(page: URL, signal?: AbortSignal, format?: string): Promise<{ info: YtdlpInfo; json: string }> {
    const info = await run(page, { signal, format });
    const json = JSON.stringify(info);
    if (json.length <= maxKeptBytes) cache.set(page.href, { info, json }, options.cacheTtlMs);
    return { info, json };
  }

  return {
    info(page) {
      const kept = cache.get(page.href);
      if (kept) return Promise.resolve(kept.info);
      // Equal look-ups at the same time share one yt-dlp run. It does not end when one caller
      // goes away, since others may wait for it; its time cap bounds it.
      const running = inFlight.get(page.href) ?? fresh(page).then(({ info }) => info).finally(() => inFlight.delete(page.href));
      inFlight.set(page.href, running);
      return running;
    },
    async select(page, selector, signal) {
      const parsed = parseFormatSelector(selector);
      let kept = cache.get(page.href);
      if (parsed === null && !kept) {
        // A selector only yt-dlp knows, and nothing kept: one run that describes and selects.
        const { info } = await fresh(page, signal, selector);
        return { info, formats: chosenFormats(info) };
      }
      kept ??= await fresh(page, signal);
      const formats = entryFormats(mainEntry(kept.info));
      if (parsed !== null && formats.every(selectableInProcess)) return { info: kept.info, formats: selectFormats(parsed, formats) };
      const info = await run(page, { format: selector, infoJson: kept.json, signal });
      return { info, formats: chosenFormats(info) };
    },
  };
}
