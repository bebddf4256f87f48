// Kite's posts, read from its API: `GET <KITE_API_URL>/posts/<id>` answers the post's words and author as JSON. A post
// holds no file, so it has nothing to download.
import { ApiError, upstreamFailed } from "../../../../src/http/problem.ts";
import type { Outbound } from "../../../../src/net/outbound.ts";
import { unknownShapeOf } from "../../../../src/platforms/known-shapes.ts";
import type { Platform } from "../../../../src/platforms/platform.ts";
import type { PostRecord } from "../../../../src/platforms/records.ts";
import type { Link, Source } from "../../../../src/platforms/source.ts";

export interface KiteSourceOptions {
  /** The platform module it reads: the shapes a link of no known shape is told. */
  platform: Platform;
  /** The outbound client to Kite's API, whose timeout bounds each exchange. */
  outbound: Outbound;
  /** Base URL of Kite's API (KITE_API_URL). */
  apiUrl: string;
}

export function createKiteSource(options: KiteSourceOptions): Source {
  async function describe(link: Link): Promise<PostRecord> {
    const id = /^\/p\/(\w+)$/.exec(link.url.pathname)?.[1];
    if (id === undefined) throw unknownShapeOf(options.platform, link.url);
    const answer = await options.outbound.json({ url: new URL(`/posts/${id}`, options.apiUrl), maxBytes: 2 ** 16 });
    if (answer.status === 404) throw new ApiError("not_found", `Kite has no post ${id}; check the link.`);
    const post = answer.body as { text: string; author: string } | undefined;
    if (answer.status !== 200 || post === undefined) throw upstreamFailed(`Kite answered ${answer.status}.`);
    return {
      platform: link.platform,
      id,
      url: `https://kite.test/p/${id}`,
      text: post.text,
      authorName: post.author,
      durationSec: null,
      posterUrl: null,
      needsServerProcessing: false,
      videoVariants: [],
      imageUrls: [],
      media: [],
      subtitles: [],
      card: null,
    };
  }
  return {
    tools: () => [],
    extracts: false,
    describe,
    plan: () => Promise.reject(new ApiError("no_media", "A Kite post holds no file to download.")),
  };
}
