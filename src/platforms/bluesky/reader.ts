// Bluesky posts, read through the public AppView as X's are through X's APIs: a short cache (a 404
// too, for less long), and one upstream call per burst of equal requests. A photo is relayed as
// Bluesky's CDN serves it; a video is an HLS playlist, which page mode remuxes into MP4 from its
// best stream (the master playlist names one per size, smallest first, and ffmpeg would take the first).
// A video's captions (captions.ts) are a transcript's, and a download embeds one as `subtitles` asks.
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import { withOriginOverride } from "../../http/direct-hosts.ts";
import { cachedPosts, type CachedPostsOptions } from "../cached-posts.ts";
import { mediaCheckOf } from "../hosts.ts";
import { itemName, photoPlan, requireItem } from "../items.ts";
import { unknownShapeOf } from "../known-shapes.ts";
import type { Platform } from "../platform.ts";
import type { PostMediaItem } from "../records.ts";
import type { Link, Plan, Source } from "../source.ts";
import type { Outbound } from "../../net/outbound.ts";
import { createAppView } from "./appview.ts";
import type { PdsOptions } from "./pds.ts";
import { bestVariant } from "./playlist.ts";
import type { BlueskyPost } from "./post.ts";
import { blueskyCaptions } from "./captions.ts";
import { postRefOf } from "./url.ts";

export interface BlueskySourceOptions extends CachedPostsOptions, PdsOptions {
  /** Base URL of the public AppView (BLUESKY_APPVIEW_URL). */
  appViewUrl: string;
  /** ORIGIN_OVERRIDES: where the CDN's files are fetched from instead (tests, a local mirror). */
  originOverrides: ReadonlyMap<string, string>;
  /** The outbound client to the AppView, the video host, the PLC directory and the PDSes, whose timeout bounds each exchange. */
  outbound: Outbound;
  /** The platform module it reads: its media hosts, and the shapes a link of no known shape is told. */
  platform: Platform;
}

/** A master playlist names a few streams in a few hundred bytes; the bound keeps one that never ends from filling memory. */
const maxPlaylistBytes = 2 ** 20;

export function createBlueskySource(options: BlueskySourceOptions): Source {
  const { outbound, platform } = options;
  const mediaHost = mediaCheckOf(platform, platform.id);
  const appView = createAppView({ baseUrl: options.appViewUrl, outbound });
  const read = cachedPosts<BlueskyPost>(options);
  const captions = blueskyCaptions(options);

  function post(link: Link, uncached = false): Promise<BlueskyPost> {
    const ref = postRefOf(link.url);
    if (ref === null) throw unknownShapeOf(platform, link.url);
    return read(`${ref.actor}/${ref.rkey}`, () => appView.post(ref), uncached);
  }

  /** The media playlist of the master's best stream, fetched from Bluesky's video host. */
  async function bestStream(master: URL, signal: AbortSignal): Promise<URL> {
    mediaHost(master, "The post's video");
    const answer = await outbound.text({ url: master, maxBytes: maxPlaylistBytes, signal });
    if (answer.text === null) {
      throw upstreamFailed(
        `Bluesky's video host answered ${answer.status} instead of the video's playlist; try again later.`,
      );
    }
    const stream = bestVariant(answer.text, master);
    mediaHost(stream, "A stream of the post's video");
    return stream;
  }

  return {
    tools: () => [],
    extracts: false,
    captions: async (link, lang, signal) => captions.text(await post(link), lang, signal),
    describe: async (link, describeOptions) => (await post(link, describeOptions?.uncached)).record,
    async plan(link, wanted, { signal }): Promise<Plan> {
      const read = await post(link);
      const { record, playlists } = read;
      const index = itemIndex(record.media, wanted.index);
      const item = record.media[index]!;
      const name = itemName("bluesky", record.id, wanted);
      const playlist = playlists[index];
      const subtitles = await captions.embedded(read, wanted.subtitles, index);
      if (item.type === "photo" || !playlist) return photoPlan(item.url!, wanted, name, mediaHost, "Bluesky");
      if (wanted.format !== null && wanted.format !== "hls" && wanted.format !== item.videoVariants[0]?.qualityLabel) {
        throw new ApiError(
          "format_not_available",
          `This video has no variant ${wanted.format}; it offers: hls (its best stream).`,
        );
      }
      const stream = withOriginOverride(await bestStream(new URL(playlist), signal), options.originOverrides);
      const output = wanted.output;
      return {
        kind: "remux",
        // Bluesky's streams are MPEG-TS segments with H.264 and ADTS AAC.
        ffmpeg: {
          output,
          inputs: [{ url: stream.href, headers: {}, hls: true }],
          videoInput: output === "mp4" ? 0 : null,
          audioInput: 0,
          transcodeVideo: false,
          transcodeAudio: false,
          adtsAudio: true,
          ...(subtitles ? { subtitles } : {}),
        },
        name,
        durationSec: null,
      };
    },
  };
}

/** 0-based: the item `index` names, by default the first video, else the first photo. */
function itemIndex(media: readonly PostMediaItem[], index: number | null): number {
  if (media.length === 0) throw new ApiError("no_media", "This post has no video or image to download.");
  if (index === null) return Math.max(0, media.findIndex((item) => item.type === "video"));
  requireItem(index, media.length);
  return index - 1;
}
