// GET /api/v1/download?url=. A media-CDN link of X is relayed as it is (direct mode); an X post
// link relays its best video (or the variant `format` names) or its first image; any other
// supported page link goes through yt-dlp and ffmpeg (page mode). `audio=mp3` turns any of them
// into MP3 with ffmpeg.
import type { ApiContext, ApiHandler } from "../http/context.ts";
import { requireUrlParam } from "../http/params.ts";
import { ApiError, upstreamFailed } from "../http/problem.ts";
import type { Slots } from "../limits/slots.ts";
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
import { assertFetchable, type EgressPolicy } from "./egress.ts";
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
  /** Concurrent page-mode downloads (and MP3 conversions). */
  downloads: Slots;
  extraPageHosts: readonly string[];
  /** Which addresses ffmpeg may be pointed at. */
  egress: EgressPolicy;
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
    const platform = detectPlatform(target, deps.extraPageHosts);
    if (platform === null) return fromMediaUrl(ctx, deps, target, wanted.output, wanted.filename ?? undefined);
    if (platform === "X") {
      const tweet = await deps.tweets.getTweet(parseStatusId(target.href));
      const media = tweetMedia(tweet, wanted.format);
      if (media?.isImage && wanted.output === "mp3") {
        throw new ApiError(400, "invalid_parameter", "This post has photos and no video; `audio=mp3` needs a video.");
      }
      // A video X offers only as HLS has a poster and no MP4: yt-dlp fetches it.
      if (media !== null) return fromMediaUrl(ctx, deps, media.url, wanted.output, wanted.filename ?? `x_${tweet.id}`);
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
  return remuxWithSlot(ctx, deps, async () => ({ plan, name, durationSec: null }));
}

/** The variant `format` names (qualityLabel or formatId), else the best; else the first image; null for neither. */
function tweetMedia(tweet: TweetRecord, format: string | null): { url: URL; isImage: boolean } | null {
  if (format !== null) {
    const variant = tweet.videoVariants.find((v) => v.qualityLabel === format || ytdlpFormatId(v.bitrate) === format);
    if (!variant) {
      const offered = tweet.videoVariants.map((v) => `${v.qualityLabel} (${ytdlpFormatId(v.bitrate)})`).join(", ") || "none";
      throw new ApiError(400, "format_not_available", `This post has no variant ${format}; it offers: ${offered}.`);
    }
    return { url: upstreamUrl(variant.url), isImage: false };
  }
  const best = tweet.videoVariants[0];
  if (best) return { url: upstreamUrl(best.url), isImage: false };
  const image = tweet.posterUrl === null ? tweet.imageUrls[0] : undefined;
  if (image !== undefined) return { url: upstreamUrl(image), isImage: true };
  if (tweet.posterUrl === null) throw new ApiError(404, "no_media", "This post has no video or image to download.");
  return null;
}

/** A URL from X's answer; one that does not parse is X's fault, not the caller's. */
function upstreamUrl(text: string): URL {
  const url = URL.parse(text);
  if (url === null) throw upstreamFailed("X named a media link that is not a valid URL; try again later.");
  return url;
}

async function pageMode(ctx: ApiContext, deps: DownloadDeps, page: URL, platform: PlatformId, wanted: Wanted): Promise<Response> {
  requireTools(deps.tools, ["yt-dlp", "ffmpeg"]);
  return remuxWithSlot(ctx, deps, async () => {
    const { info, formats } = await deps.pages.select(page, selectorFor(wanted.format, wanted.output), ctx.request.signal);
    // The unrounded length: the post record's whole seconds would be off by up to half a second.
    const durationSec = mainEntry(info).duration ?? null;
    return { plan: planRemux(formats, wanted.output), name: wanted.filename ?? `${platform.toLowerCase()}_${infoToPost(info, platform, page).id}`, durationSec };
  });
}

/**
 * Holds a download slot while ffmpeg turns the plan `prepare` makes into the response; the slot is
 * given back when ffmpeg ends, or at once when anything before fails. Every URL ffmpeg will read
 * is checked first: a page names them, and a page may name an address inside our network.
 */
async function remuxWithSlot(
  ctx: ApiContext,
  deps: DownloadDeps,
  prepare: () => Promise<{ plan: RemuxPlan; name: string; durationSec: number | null }>,
): Promise<Response> {
  const release = deps.downloads.acquire(ctx.key.id, ctx.key.tier);
  try {
    const { plan, name, durationSec } = await prepare();
    await Promise.all(plan.inputs.map((input) => assertFetchable(new URL(input.url), deps.egress)));
    return await remuxResponse({ plan, name, durationSec, method: ctx.request.method, signal: ctx.request.signal, onEnd: release }, deps.remux);
  } catch (error) {
    release();
    throw error;
  }
}
