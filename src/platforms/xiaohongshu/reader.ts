// Xiaohongshu (RedNote) notes, read from the note's own page as cobalt reads them: the page's
// initial state names the note's photos and its video's files on the site's CDN, which are relayed
// as they are served. A short link is followed to its note first. yt-dlp reads only a note's video
// and gallery-dl none of the site, so the service reads the page itself, and keeps what it read
// a while (cached-posts.ts), as for the other platforms the service reads itself.
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import { cachedPosts, type CachedPostsOptions } from "../cached-posts.ts";
import { mediaCheckOf } from "../hosts.ts";
import { itemName, photoPlan, requireItem, requireNoSubtitles } from "../items.ts";
import { unknownShapeOf } from "../known-shapes.ts";
import type { Platform } from "../platform.ts";
import type { Link, Plan, Source } from "../source.ts";
import type { Outbound, OutboundAnswer } from "../../net/outbound.ts";
import { noteToPost, type XiaohongshuPost } from "./note.ts";
import { initialStateOf } from "./state.ts";
import { isShortLink, noteOf, notePage, type NoteRef, shortHostOf } from "./url.ts";

export interface XiaohongshuSourceOptions extends CachedPostsOptions {
  /** The outbound client to the site, whose timeout bounds each exchange. */
  outbound: Outbound;
  /** The site refused this server (502 upstream_blocked): metrics and the platform check listen. */
  onBlocked?: (page: URL, error: ApiError) => void;
  /** The platform module it reads: its media hosts, and the shapes a link of no known shape is told. */
  platform: Platform;
}

/** Whether a link passes the media-host check. */
const passes = (check: (url: URL) => void) => (link: string) => {
  try {
    check(new URL(link));
    return true;
  } catch {
    return false;
  }
};
/** The site's pages are for browsers; cobalt, too, asks as one. */
const browserHeaders = {
  "user-agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml",
};
/**
 * A note's page is a few hundred KB. The bound keeps a page that never ends from filling memory:
 * a read holds the page's text, and then its state, until the record is made.
 */
const maxPageBytes = 4 * 2 ** 20;

/** The note page's text; throws unless the answer is one: 404 for no note, 502 upstream_blocked for a wall. */
function notePageText(response: OutboundAnswer, ref: NoteRef, onBlocked: (refused: ApiError) => void): string {
  if (response.text !== null && response.status <= 299) return response.text;
  if (response.status === 404) {
    throw new ApiError("not_found", `Xiaohongshu has no note ${ref.id}; it may have been deleted. Check the link.`);
  }
  // A redirect away from the note is the site's sign-in or bot check.
  if (response.status === 429 || (response.status >= 300 && response.status <= 399)) {
    const refused = new ApiError(
      "upstream_blocked",
      "Xiaohongshu answered this server with a sign-in, a bot check or its rate limit instead of the note; the operator can send its requests through a proxy with a better address (OUTBOUND_PROXY).",
    );
    onBlocked(refused);
    throw refused;
  }
  throw upstreamFailed(`Xiaohongshu answered with status ${response.status}; try again later.`);
}

export function createXiaohongshuSource(options: XiaohongshuSourceOptions): Source {
  const read = cachedPosts<XiaohongshuPost>(options);
  const mediaHost = mediaCheckOf(options.platform, options.platform.id);
  const onMediaHost = passes(mediaHost);
  // A redirect is the answer: a short link's target, or a page's sign-in wall.
  const exchange = (url: URL) =>
    options.outbound.text({ url, headers: browserHeaders, redirect: "manual", maxBytes: maxPageBytes });

  /**
   * The note a short link leads to: its redirect's target, which must be a note link. Only the
   * link's path is asked for, of its short-link host itself (xhslink.com or xhslink.cn): not the port, query or
   * subdomain a caller wrote.
   */
  async function followShortLink(url: URL): Promise<NoteRef> {
    const response = await exchange(new URL(url.pathname, `https://${shortHostOf(url)}`));
    const target = URL.parse(response.headers.get("location") ?? "", url);
    const ref = target === null || response.status < 300 || response.status > 399 ? null : noteOf(target);
    if (ref === null) {
      throw new ApiError(
        "not_found",
        `This ${shortHostOf(url)} short link leads to no Xiaohongshu note; check the link.`,
      );
    }
    return ref;
  }

  async function load(ref: NoteRef): Promise<XiaohongshuPost> {
    const page = notePage(ref);
    const response = await exchange(page);
    const state = initialStateOf(notePageText(response, ref, (refused) => options.onBlocked?.(page, refused)));
    if (state === null) {
      throw upstreamFailed("Xiaohongshu's page held no note data this service can read; try again later.");
    }
    return noteToPost(state, ref, onMediaHost);
  }

  async function post(link: Link, uncached = false): Promise<XiaohongshuPost> {
    const ref = isShortLink(link.url) ? await followShortLink(link.url) : noteOf(link.url);
    if (ref === null) throw unknownShapeOf(options.platform, link.url);
    return read(ref.id, () => load(ref), uncached);
  }

  return {
    tools: () => [],
    extracts: false,
    describe: async (link, describeOptions) => (await post(link, describeOptions?.uncached)).record,
    async plan(link, wanted): Promise<Plan> {
      const { record, files } = await post(link);
      requireNoSubtitles(wanted);
      if (wanted.index !== null) requireItem(wanted.index, record.media.length);
      const item = record.media[(wanted.index ?? 1) - 1]!;
      const name = itemName("xiaohongshu", record.id, wanted);
      if (item.type === "photo") return photoPlan(item.url!, wanted, name, mediaHost, "Xiaohongshu");
      const [file, ...backups] = videoFiles(item.videoVariants, files, wanted.format);
      return {
        kind: "relay",
        url: new URL(file!),
        mirrors: backups.map((backup) => new URL(backup)),
        allowed: mediaHost,
        name,
      };
    },
  };
}

/** The files of the variant `format` names (a format id or a quality label), by default the best: its link, then its backups. */
function videoFiles(
  variants: readonly { formatId: string; qualityLabel: string }[],
  files: ReadonlyMap<string, string[]>,
  format: string | null,
): string[] {
  const variant = format === null
    ? variants[0]
    : variants.find((each) => each.formatId === format || each.qualityLabel === format);
  if (variant === undefined) {
    throw new ApiError(
      "format_not_available",
      `This video has no variant ${format}; it offers: ${variants.map((each) => each.formatId).join(", ")}.`,
    );
  }
  return files.get(variant.formatId)!;
}
