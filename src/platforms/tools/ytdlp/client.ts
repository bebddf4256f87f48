// Page descriptions from yt-dlp, kept briefly so that `post` followed by `download` of the same
// link extracts once. A download picks its formats from the description in-process
// (format-selector.ts), so it runs yt-dlp at most once, and not at all after `post`; a selector
// that needs more of yt-dlp's grammar is applied by yt-dlp to the kept description
// (`--load-info-json`, no network).
import { sharedRuns } from "../../../util/shared-runs.ts";
import { createTtlCache } from "../../../util/ttl-cache.ts";
import type { Extractor } from "../../../processes/extractor.ts";
import { type ToolAccess, withToolAccess } from "../tool-access.ts";
import { parseFormatSelector, selectFormats } from "./format-selector.ts";
import { entryFormats, itemDescription, type YtdlpEntry, type YtdlpFormat, type YtdlpInfo } from "./info.ts";
import { extractInfo, type PoTokenServer } from "./run.ts";
import { chosenFormats } from "./selection.ts";

export interface PageClientOptions extends ToolAccess {
  /** Runs yt-dlp (per request, or in the warm extraction host). */
  extractor: Extractor;
  timeoutMs: number;
  socketTimeoutSec: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
  /** Most entries of a page with several media that a description holds (PLAYLIST_MAX_ITEMS). */
  maxItems: number;
  now?: () => number;
  /** yt-dlp's `--js-runtimes` value; null for none. */
  jsRuntime?: string | null;
  /** PO_TOKEN_URL and its bound, for the proof-of-origin tokens of the platforms whose module says `poTokens`. */
  poTokens?: PoTokenServer;
}

export interface PageClient {
  /**
   * The page's description: formats, title, author, duration, thumbnails. `uncached` skips a kept
   * description (the platform check wants to know how the platform answers now).
   */
  info(page: URL, options?: { uncached?: boolean }): Promise<YtdlpInfo>;
  /**
   * The description of item `item` (1-based; see postItems) and the formats `selector` picks from
   * that item alone (one, or a video and an audio one), so a selector that fits it need not fit
   * the others.
   */
  select(
    page: URL,
    selector: string,
    signal?: AbortSignal,
    item?: number,
  ): Promise<{ info: YtdlpInfo; formats: YtdlpFormat[] }>;
  /**
   * yt-dlp's flat listing of the page's first `limit` entries (`range`, as `--playlist-items` takes it), not kept;
   * a page that is one post answers its whole description, which is kept as `info` keeps it.
   */
  listing(page: URL, range: string, signal: AbortSignal): Promise<YtdlpInfo>;
}

// yt-dlp tries such formats over the network before it picks one; only yt-dlp can choose there.
const selectableInProcess = (format: YtdlpFormat) => format.has_drm !== true && !("__needs_testing" in format);

/**
 * yt-dlp fills in a format's cookies and size only where it chose the format itself (the top
 * level, `requested_formats`), not in `formats`. The chosen formats get those fields back; null
 * when the page needs cookies that a chosen format would lack, so that yt-dlp chooses instead.
 */
function withYtdlpFields(entry: YtdlpEntry, chosen: YtdlpFormat[]): YtdlpFormat[] | null {
  const filled = [entry, ...(entry.requested_formats ?? [])];
  const formats = chosen.map((format) => ({
    ...format,
    ...filled.find((known) => known.format_id === format.format_id),
  }));
  const needsCookies = filled.some((known) => known.cookies);
  return needsCookies && formats.some((format) => !format.cookies) ? null : formats;
}

/** A description this large (a page with thousands of formats) is used once and not kept. */
const maxKeptBytes = 1024 * 1024;

/** The kept descriptions, by link: `keep` keeps one not too large, and hands it back with its JSON. */
function keptDescriptions(options: PageClientOptions) {
  const cache = createTtlCache<{ info: YtdlpInfo; json: string }>({
    maxEntries: options.cacheMaxEntries,
    now: options.now ?? Date.now,
  });
  const keep = (page: URL, info: YtdlpInfo): { info: YtdlpInfo; json: string } => {
    const json = JSON.stringify(info);
    if (json.length <= maxKeptBytes) cache.set(page.href, { info, json }, options.cacheTtlMs);
    return { info, json };
  };
  return { cache, keep };
}

export function createPageClient(options: PageClientOptions): PageClient {
  const { cache, keep } = keptDescriptions(options);
  const shared = sharedRuns<YtdlpInfo>();

  const everyItem = `1:${options.maxItems}`;

  async function run(
    page: URL,
    extra: { playlistItems?: string; format?: string; infoJson?: string; signal?: AbortSignal; flat?: boolean },
  ): Promise<YtdlpInfo> {
    const common = {
      extractor: options.extractor,
      timeoutMs: options.timeoutMs,
      socketTimeoutSec: options.socketTimeoutSec,
      jsRuntime: options.jsRuntime,
      poTokens: options.poTokens,
    };
    // A load from the kept description needs no network: no gate session, no cookies.
    return withToolAccess(
      options,
      page,
      extra.infoJson === undefined,
      (access) => extractInfo(page.href, { ...common, ...access, ...extra }),
    );
  }

  async function fresh(
    page: URL,
    playlistItems: string,
    format?: string,
    signal?: AbortSignal,
  ): Promise<{ info: YtdlpInfo; json: string }> {
    const info = await run(page, { playlistItems, format, signal });
    // A run for one item of a playlist does not describe the whole post, so it is not kept.
    return playlistItems === everyItem || info._type !== "playlist"
      ? keep(page, info)
      : { info, json: JSON.stringify(info) };
  }

  return {
    async listing(page, range, signal) {
      const info = await run(page, { playlistItems: range, flat: true, signal });
      // One post, described whole: its download need not read the page again.
      return info._type === "playlist" ? info : keep(page, info).info;
    },
    info(page, { uncached = false } = {}) {
      const kept = uncached ? undefined : cache.get(page.href);
      if (kept) return Promise.resolve(kept.info);
      return shared(page.href, () => fresh(page, everyItem).then(({ info }) => info));
    },
    async select(page, selector, signal, item = 1) {
      const parsed = parseFormatSelector(selector);
      let kept = cache.get(page.href);
      // With the operator's cookies only a run that fetches says which of them each chosen format
      // needs; so does a selector only yt-dlp knows when nothing is kept: one run that describes and selects.
      if ((parsed === null && !kept) || options.cookies !== undefined) {
        const { info } = await fresh(page, String(item), selector, signal);
        return { info, formats: chosenFormats(info) };
      }
      kept ??= await fresh(page, everyItem, undefined, signal);
      const described = itemDescription(kept.info, item);
      if (!described) {
        const { info } = await fresh(page, String(item), selector, signal);
        return { info, formats: chosenFormats(info) };
      }
      const formats = entryFormats(described);
      const chosen = parsed !== null && formats.every(selectableInProcess)
        ? withYtdlpFields(described, selectFormats(parsed, formats))
        : null;
      if (chosen !== null) return { info: described, formats: chosen };
      const infoJson = described === kept.info ? kept.json : JSON.stringify(described);
      const info = await run(page, { format: selector, infoJson, signal });
      return { info, formats: chosenFormats(info) };
    },
  };
}
