// GET /api/v1/download?url=. A media-CDN link of X is relayed as it is (direct mode); an X post
// link relays its best video (or the variant `format` names) or its first image; any other
// supported page link goes through yt-dlp and ffmpeg (page mode). `audio=mp3` turns any of them
// into MP3 with ffmpeg.
import type { ApiContext, ApiHandler } from "../http/context.ts";
import { requireUrlParam } from "../http/params.ts";
import { ApiError } from "../http/problem.ts";
import type { DownloadSlots } from "../limits/download-slots.ts";
import { requirePlatform } from "../platforms/post-handler.ts";
import type { PlatformId, TweetRecord } from "../platforms/records.ts";
import { detectPlatform } from "../platforms/table.ts";
import { ytdlpFormatId } from "../platforms/x/post.ts";
import type { TweetSource } from "../platforms/x/source.ts";
import { parseStatusId } from "../platforms/x/url.ts";
import { mainEntry } from "../platforms/ytdlp/info.ts";
import { infoToPost } from "../platforms/ytdlp/post.ts";
import { planRemux, selectorFor, type OutputKind } from "../platforms/ytdlp/selection.ts";
import type { PageSource } from "../platforms/ytdlp/source.ts";
import { assertDirectUrl, withOriginOverride } from "./direct-hosts.ts";
import type { RemuxPlan } from "./ffmpeg.ts";
import { nameFromMediaUrl } from "./filename.ts";
import { relayMedia, type RelayOptions } from "./relay.ts";
import { remuxResponse, type RemuxOptions } from "./remux.ts";
import { requireTools, type Tools } from "./tools.ts";

export interface DownloadDeps {
  relay: RelayOptions;
  remux: RemuxOptions;
  tweets: TweetSource;
  pages: PageSource;
  tools: Tools;
  slots: DownloadSlots;
  extraPageHosts: readonly string[];
}

interface Wanted {
  output: OutputKind;
  /** yt-dlp format selector, or for X a qualityLabel or formatId of the post's variants. */
  format: string | null;
  filename: string | null;
}

export function downloadHandler(deps: DownloadDeps): ApiHandler {
  return async (ctx) => {
    const query = ctx.url.searchParams;
    const target = requireUrlParam(query);
    const wanted: Wanted = { output: outputOf(query.get("audio")), format: query.get("format")?.trim() || null, filename: query.get("filename") };
    if (detectPlatform(target, deps.extraPageHosts) === null) return fromMediaUrl(ctx, deps, target, wanted.output, wanted.filename ?? undefined);
    const platform = requirePlatform(target, deps.extraPageHosts);
    if (platform === "X") {
      const tweet = await deps.tweets.getTweet(parseStatusId(target.href));
      const media = tweetMedia(tweet, wanted.format);
      // A video X offers only as HLS has a poster and no MP4: yt-dlp fetches it.
      if (media !== null) return fromMediaUrl(ctx, deps, media, wanted.output, wanted.filename ?? `x_${tweet.id}`);
    }
    return pageMode(ctx, deps, target, platform, wanted);
  };
}

function outputOf(audio: string | null): OutputKind {
  if (audio === null || audio === "") return "mp4";
  if (audio === "mp3") return "mp3";
  throw new ApiError(400, "invalid_parameter", "`audio` takes only the value `mp3` (MP3 at 320 kbps); leave it out for MP4.");
}

/** Direct mode: the file as the CDN has it, or as MP3 through ffmpeg. */
async function fromMediaUrl(ctx: ApiContext, deps: DownloadDeps, media: URL, output: OutputKind, filename: string | undefined): Promise<Response> {
  const method = ctx.request.method === "HEAD" ? "HEAD" : "GET";
  if (output === "mp4") {
    return relayMedia({ url: media, method, range: ctx.request.headers.get("range"), signal: ctx.request.signal, filename }, deps.relay);
  }
  assertDirectUrl(media);
  requireTools(deps.tools, ["ffmpeg"]);
  const input = { url: withOriginOverride(media, deps.relay.originOverrides).href, headers: {}, hls: media.pathname.endsWith(".m3u8") };
  const plan: RemuxPlan = { output, inputs: [input], videoInput: null, audioInput: 0, transcodeVideo: false, transcodeAudio: false, adtsAudio: false };
  const name = filename ?? nameFromMediaUrl(media).stem;
  return withSlot(ctx, deps, (release) => remuxResponse({ plan, name, durationSec: null, method: ctx.request.method, signal: ctx.request.signal, onEnd: release }, deps.remux));
}

/** The variant `format` names (qualityLabel or formatId), else the best; else the first image; null for neither. */
function tweetMedia(tweet: TweetRecord, format: string | null): URL | null {
  if (format !== null) {
    const variant = tweet.videoVariants.find((v) => v.qualityLabel === format || ytdlpFormatId(v.bitrate) === format);
    if (!variant) {
      const offered = tweet.videoVariants.map((v) => `${v.qualityLabel} (${ytdlpFormatId(v.bitrate)})`).join(", ") || "none";
      throw new ApiError(400, "format_not_available", `This post has no variant ${format}; it offers: ${offered}.`);
    }
    return new URL(variant.url);
  }
  const best = tweet.videoVariants[0]?.url ?? (tweet.posterUrl === null ? tweet.imageUrls[0] : undefined);
  if (best !== undefined) return new URL(best);
  if (tweet.posterUrl === null) throw new ApiError(404, "no_media", "This post has no video or image to download.");
  return null;
}

async function pageMode(ctx: ApiContext, deps: DownloadDeps, page: URL, platform: PlatformId, wanted: Wanted): Promise<Response> {
  requireTools(deps.tools, ["yt-dlp", "ffmpeg"]);
  return withSlot(ctx, deps, async (release) => {
    const info = await deps.pages.select(page, selectorFor(wanted.format, wanted.output), ctx.request.signal);
    const name = wanted.filename ?? `${platform.toLowerCase()}_${infoToPost(info, platform, page).id}`;
    // The unrounded length: the post record's whole seconds would be off by up to half a second.
    const durationSec = mainEntry(info).duration ?? null;
    return remuxResponse({ plan: planRemux(info, wanted.output), name, durationSec, method: ctx.request.method, signal: ctx.request.signal, onEnd: release }, deps.remux);
  });
}

/** Runs `work` holding a download slot; the slot is given back when ffmpeg ends, or at once when `work` fails. */
async function withSlot(ctx: ApiContext, deps: DownloadDeps, work: (release: () => void) => Promise<Response>): Promise<Response> {
  const release = deps.slots.acquire(ctx.key.id, ctx.key.tier);
  try {
    return await work(release);
  } catch (error) {
    release();
    throw error;
  }
}
