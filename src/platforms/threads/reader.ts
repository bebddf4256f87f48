// Threads posts, read from the post's own page as cobalt's pull request #1558 and yt-dlp's pull
// requests read it: the page preloads the web client's query result (page.ts), which names the
// post's words, author, photos and videos on Meta's CDN; the files are relayed as they are served.
// A page that does not preload the post gives the token and cookie its query needs (query.ts), as
// FxEmbed asks it.
// No tool reads Threads (cobalt has no reader, yt-dlp and gallery-dl no extractor), so the service
// reads the page itself through its outbound client, and keeps what it read a while
// (cached-posts.ts), as for the other platforms the service reads itself.
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import { cachedPosts, type CachedPostsOptions } from "../cached-posts.ts";
import { mediaCheckOf } from "../hosts.ts";
import { itemName, photoPlan, requireItem, requireNoSubtitles } from "../items.ts";
import { unknownShapeOf } from "../known-shapes.ts";
import type { Platform } from "../platform.ts";
import type { Outbound } from "../../net/outbound.ts";
import type { PostRecord } from "../records.ts";
import type { Link, Plan, Source } from "../source.ts";
import { relayResultsOf } from "./page.ts";
import { postIn, threadsPost } from "./post.ts";
import { cookiesOf, lsdOf, postQuery } from "./query.ts";
import { postOf, postPage, type ThreadsPostRef } from "./url.ts";

export interface ThreadsSourceOptions extends CachedPostsOptions {
  /** The outbound client to the site, whose timeout bounds each exchange. */
  outbound: Outbound;
  /** The web client's query id for a post page (THREADS_QUERY_ID); Threads changes it now and then. */
  queryId: string;
  /** The platform module it reads: its media hosts, and the shapes a link of no known shape is told. */
  platform: Platform;
}

/** The site's pages are for browsers; the readers above ask as one. */
const browserHeaders = {
  "user-agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml",
  "accept-language": "en-US,en;q=0.9",
  "sec-fetch-mode": "navigate",
};
/** A post's page is about a megabyte of markup and data; the bound keeps one that never ends from filling memory. */
const maxPageBytes = 8 * 2 ** 20;
/** The query's answer is the page's data alone: a post, its chain and a page of replies. */
const maxAnswerBytes = 4 * 2 ** 20;
const queryUrl = new URL("https://www.threads.com/graphql/query");

export function createThreadsSource(options: ThreadsSourceOptions): Source {
  const read = cachedPosts<PostRecord>(options);
  const mediaHost = mediaCheckOf(options.platform, options.platform.id);

  async function load(ref: ThreadsPostRef): Promise<PostRecord> {
    const page = await options.outbound.text({ url: postPage(ref), headers: browserHeaders, maxBytes: maxPageBytes });
    if (page.status === 404) throw new ApiError("not_found", `Threads has no post ${ref.code}; check the link.`);
    if (page.text === null) throw upstreamFailed(`Threads answered with status ${page.status}; try again later.`);
    const results = relayResultsOf(page.text);
    if (postIn(results, ref) !== undefined) return threadsPost(results, ref);
    const lsd = lsdOf(page.text);
    if (lsd === null) throw upstreamFailed("Threads' page held no post data this service can read; try again later.");
    return threadsPost([await queried(ref, { lsd, cookie: cookiesOf(page.headers.getSetCookie()) })], ref);
  }

  /** The post's query answer, with the page's LSD token and cookies. */
  async function queried(ref: ThreadsPostRef, access: { lsd: string; cookie: string }): Promise<unknown> {
    const query = postQuery(ref.code, { ...access, queryId: options.queryId });
    const answer = await options.outbound.json({ url: queryUrl, method: "POST", ...query, maxBytes: maxAnswerBytes });
    if (answer.status !== 200) {
      throw upstreamFailed(
        `Threads refused the post's query (status ${answer.status}); try again later. If this lasts, the operator may need to set THREADS_QUERY_ID to the query id Threads' web client uses now.`,
      );
    }
    return answer.body;
  }

  function post(link: Link, uncached = false): Promise<PostRecord> {
    const ref = postOf(link.url);
    if (ref === null) throw unknownShapeOf(options.platform, link.url);
    return read(ref.code, () => load(ref), uncached);
  }

  return {
    tools: () => [],
    extracts: false,
    describe: (link, describeOptions) => post(link, describeOptions?.uncached),
    async plan(link, wanted): Promise<Plan> {
      const record = await post(link);
      requireNoSubtitles(wanted);
      if (record.media.length === 0) throw new ApiError("no_media", "This post has no video or image to download.");
      if (wanted.index !== null) requireItem(wanted.index, record.media.length);
      const item = record.media[(wanted.index ?? 1) - 1]!;
      const name = itemName("threads", record.id, wanted);
      if (item.type === "photo") return photoPlan(item.url!, wanted, name, mediaHost, "Threads");
      const variant = item.videoVariants[0]!;
      if (wanted.format !== null && wanted.format !== variant.formatId) {
        throw new ApiError(
          "format_not_available",
          `This video has no variant ${wanted.format}; it offers: ${variant.formatId}.`,
        );
      }
      const url = new URL(item.url!);
      mediaHost(url, "The post's video");
      return { kind: "relay", url, allowed: mediaHost, name };
    },
  };
}
