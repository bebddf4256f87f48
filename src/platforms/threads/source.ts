// Threads posts, read from the post's own page as cobalt's pull request #1558 and yt-dlp's pull
// requests read it: the page preloads the web client's query result (page.ts), which names the
// post's words, author, photos and videos on Meta's CDN; the files are relayed as they are served.
// No tool reads Threads (cobalt has no reader, yt-dlp and gallery-dl no extractor), so the service
// reads the page itself through its outbound client, and keeps what it read a while
// (cached-posts.ts), as for Bluesky and Xiaohongshu.
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import { cachedPosts, type CachedPostsOptions } from "../cached-posts.ts";
import { itemName, photoPlan, requireItem, requireNoSubtitles } from "../items.ts";
import type { Outbound } from "../outbound.ts";
import type { PostRecord } from "../records.ts";
import type { Link, Plan, Source } from "../source.ts";
import { platformMediaCheck } from "../table.ts";
import { relayResultsOf } from "./page.ts";
import { threadsPost } from "./post.ts";
import { notAPostLink, postOf, postPage, type ThreadsPostRef } from "./url.ts";

export interface ThreadsSourceOptions extends CachedPostsOptions {
  /** The outbound client to the site, whose timeout bounds each exchange. */
  outbound: Outbound;
}

const mediaHost = platformMediaCheck("THREADS");
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

export function createThreadsSource(options: ThreadsSourceOptions): Source {
  const read = cachedPosts<PostRecord>(options);

  async function load(ref: ThreadsPostRef): Promise<PostRecord> {
    const page = await options.outbound.text({ url: postPage(ref), headers: browserHeaders, maxBytes: maxPageBytes });
    if (page.status === 404) throw new ApiError("not_found", `Threads has no post ${ref.code}; check the link.`);
    if (page.text === null) throw upstreamFailed(`Threads answered with status ${page.status}; try again later.`);
    const results = relayResultsOf(page.text);
    if (results.length === 0) {
      throw upstreamFailed("Threads' page held no post data this service can read; try again later.");
    }
    return threadsPost(results, ref);
  }

  function post(link: Link, uncached = false): Promise<PostRecord> {
    const ref = postOf(link.url);
    if (ref === null) throw notAPostLink(link.url);
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
