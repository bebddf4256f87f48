// GET /api/v1/download?url=. A media-CDN link of X is relayed as it is (direct mode); an X post
// link relays its best video (or the variant `format` names) or its first image, or the item
// `index` names; any other supported page link goes through yt-dlp and ffmpeg (page mode), which
// can also embed a subtitle track, or, for a post gallery-dl reads (platforms/post-source.ts),
// relays the photo or video file `index` names as the platform's CDN serves it. `audio=mp3`
// turns any of them into MP3 with ffmpeg.
import type { ApiContext, ApiHandler } from "../http/context.ts";
import { DownloadQuery, parseQuery } from "../http/query.ts";
import { whenResponseDone } from "../http/response-done.ts";
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { cutWhenClientStalls } from "../http/client-stall.ts";
import { slotHolder, type Slots } from "../limits/slots.ts";
import { downloadResponse } from "../metrics/downloads.ts";
import type { DownloadMode } from "../metrics/service-metrics.ts";
import type { GallerySource } from "../platforms/gallerydl/source.ts";
import { byTool, firstTool } from "../platforms/post-source.ts";
import type { PlatformId, PostRecord, TweetMediaItem, TweetRecord } from "../platforms/records.ts";
import { detectPlatform, platformMediaCheck } from "../platforms/table.ts";
import { ytdlpFormatId } from "../platforms/x/post.ts";
import type { TweetSource } from "../platforms/x/source.ts";
import { parseStatusId } from "../platforms/x/url.ts";
import { mainEntry, postItems } from "../platforms/ytdlp/info.ts";
import { infoToPost } from "../platforms/ytdlp/post.ts";
import { planRemux, selectorFor, type OutputKind } from "../platforms/ytdlp/selection.ts";
import type { PageSource } from "../platforms/ytdlp/source.ts";
import { chooseSubtitle, missingSubtitles } from "../platforms/ytdlp/subtitles.ts";
import { assertDirectUrl, withOriginOverride } from "../media/direct-hosts.ts";
import { assertFetchable, type EgressPolicy } from "../media/egress.ts";
import type { RemuxPlan } from "../media/ffmpeg.ts";
import { nameFromMediaUrl } from "../media/filename.ts";
import { relayMedia, type RelayOptions } from "../media/relay.ts";
import { remuxResponse, type RemuxOptions, type RemuxRequest } from "../media/remux.ts";
import { requireTools, type Tools } from "../processes/tools.ts";

export interface DownloadDeps {
  relay: RelayOptions;
  remux: RemuxOptions;
  tweets: TweetSource;
  pages: PageSource;
  galleries: GallerySource;
  tools: Promise<Tools>;
  /** Concurrent page-mode downloads (and MP3 conversions). */
  remuxes: Slots;
  /** Concurrent direct-mode relays. */
  directDownloads: Slots;
  extraPageHosts: readonly string[];
  /** Which addresses ffmpeg may be pointed at. */
  egress: EgressPolicy;
  /** A download whose client takes nothing for this long is cut (0: never). */
  clientStallTimeoutMs: number;
}

interface Wanted {
  output: OutputKind;
  /** yt-dlp format selector, or for X a qualityLabel or formatId of the post's variants. */
  format: string | null;
  filename: string | null;
  /** Which item of the post (1-based, as in the record's `media`); null for the default one. */
  index: number | null;
  /** Language of the subtitle track to embed; null for none. */
  subtitles: string | null;
}

export function downloadHandler(deps: DownloadDeps): ApiHandler {
  return async (ctx) => {
    const query = parseQuery(DownloadQuery, ctx.url.searchParams);
    const target = query.url;
    const wanted: Wanted = { output: query.audio ?? "mp4", format: query.format || null, filename: query.filename ?? null, index: query.index ?? null, subtitles: query.subtitles ?? null };
    if (wanted.subtitles !== null && wanted.output === "mp3") {
      throw new ApiError("invalid_parameter", "`subtitles` embeds a track into MP4; MP3 (`audio=mp3`) cannot hold one. Leave one of them out.");
    }
    const platform = detectPlatform(target, deps.extraPageHosts);
    // Only page mode has subtitles: X lists none, and a media link is a bare file.
    if (wanted.subtitles !== null && (platform === null || platform === "X")) throw missingSubtitles(wanted.subtitles, []);
    if (platform === null) {
      // A media link is one file: item 1.
      if (wanted.index !== null) requireItem(wanted.index, 1);
      return fromMediaUrl(ctx, deps, target, wanted.output, wanted.filename ?? undefined);
    }
    if (platform === "X") {
      const tweet = await deps.tweets.getTweet(parseStatusId(target.href));
      const item = tweetItem(tweet, wanted.index);
      if (item.type === "photo" && wanted.output === "mp3") {
        throw new ApiError("invalid_parameter", "This item is a photo; `audio=mp3` needs a video.");
      }
      const name = wanted.filename ?? (wanted.index === null ? `x_${tweet.id}` : `x_${tweet.id}_${wanted.index}`);
      const media = itemUrl(item, wanted.format);
      if (media !== null) return fromMediaUrl(ctx, deps, media, wanted.output, name);
      // A video X offers only as HLS has a poster and no MP4: yt-dlp fetches it. yt-dlp lists
      // a post's videos and GIFs but not its photos, so the item is counted among those.
      const among = wanted.index === null ? null : tweet.media.slice(0, wanted.index).filter((m) => m.type !== "photo").length;
      return pageMode(ctx, deps, target, platform, { ...wanted, filename: name, index: among });
    }
    await requireTools(deps.tools, [firstTool(target, platform)]);
    return pageMode(ctx, deps, target, platform, wanted);
  };
}

/**
 * A post gallery-dl read: the file of item `index` (by default the first), relayed as the
 * platform's CDN serves it, like an X media link (direct mode), or as MP3 through ffmpeg.
 */
async function galleryFile(ctx: ApiContext, deps: DownloadDeps, record: PostRecord, platform: PlatformId, wanted: Wanted): Promise<Response> {
  if (wanted.subtitles !== null) throw missingSubtitles(wanted.subtitles, []);
  if (wanted.index !== null) requireItem(wanted.index, record.media.length);
  const item = record.media[(wanted.index ?? 1) - 1];
  if (item === undefined) throw new ApiError("no_media", "This post has no video or image to download.");
  if (wanted.format !== null) {
    throw new ApiError("format_not_available", `This ${item.type} is one file as the platform serves it; it has no variants to choose from. Leave \`format\` out.`);
  }
  if (item.type !== "video" && wanted.output === "mp3") throw new ApiError("invalid_parameter", `This item is a ${item.type}; \`audio=mp3\` needs a video.`);
  if (item.url === null) throw upstreamFailed("gallery-dl named no file for this item; try again later.");
  const name = wanted.filename ?? `${platform.toLowerCase()}_${record.id}${wanted.index === null ? "" : `_${wanted.index}`}`;
  return fromMediaUrl(ctx, deps, upstreamUrl(item.url), wanted.output, name, platformMediaCheck(platform));
}

/** 400 for an index past the post's last item, saying how many there are. */
function requireItem(index: number, count: number): void {
  if (index <= count) return;
  const items = count === 1 ? "1 item" : `${count} items`;
  throw new ApiError("invalid_parameter", `\`index=${index}\` is past the last item: this post has ${items}; \`index\` counts from 1.`);
}

/** Direct mode: the file as the CDN has it, or as MP3 through ffmpeg. `allowed` says which CDN (X's by default). */
async function fromMediaUrl(ctx: ApiContext, deps: DownloadDeps, media: URL, output: OutputKind, filename: string | undefined, allowed = assertDirectUrl): Promise<Response> {
  const method = ctx.request.method === "HEAD" ? "HEAD" : "GET";
  if (output === "mp4") {
    // Held until the upstream body is over or the response is (whichever the runtime tells first).
    const release = deps.directDownloads.acquire(slotHolder(ctx));
    whenResponseDone(ctx.request, release);
    try {
      return served(deps, await relayMedia({ url: media, allowed, method, range: ctx.request.headers.get("range"), signal: ctx.request.signal, filename, onEnd: release }, deps.relay), "direct");
    } catch (error) {
      release();
      throw error;
    }
  }
  allowed(media);
  await requireTools(deps.tools, ["ffmpeg"]);
  const input = { url: withOriginOverride(media, deps.relay.originOverrides).href, headers: {}, hls: media.pathname.endsWith(".m3u8") };
  const plan: RemuxPlan = { output, inputs: [input], videoInput: null, audioInput: 0, transcodeVideo: false, transcodeAudio: false, adtsAudio: false };
  const name = filename ?? nameFromMediaUrl(media).stem;
  return remuxWithSlot(ctx, deps, async () => ({ plan, name, durationSec: null }));
}

/**
 * The item `index` names; by default the first video or GIF (what the record's own video fields
 * describe), else the first photo. A post with neither is 404.
 */
function tweetItem(tweet: TweetRecord, index: number | null): TweetMediaItem {
  if (index !== null) {
    requireItem(index, tweet.media.length);
    return tweet.media[index - 1]!;
  }
  const item = tweet.media.find((m) => m.type !== "photo") ?? tweet.media[0];
  if (item === undefined) throw new ApiError("no_media", "This post has no video or image to download.");
  return item;
}

/** The file to relay: the variant `format` names (qualityLabel or formatId), else the item's own; null when only page mode has it. */
function itemUrl(item: TweetMediaItem, format: string | null): URL | null {
  if (format !== null) {
    const variant = item.videoVariants.find((v) => v.qualityLabel === format || ytdlpFormatId(v.bitrate) === format);
    if (!variant) {
      const offered = item.videoVariants.map((v) => `${v.qualityLabel} (${ytdlpFormatId(v.bitrate)})`).join(", ") || "none";
      throw new ApiError("format_not_available", `This ${item.type} has no variant ${format}; it offers: ${offered}.`);
    }
    return upstreamUrl(variant.url);
  }
  return item.url === null ? null : upstreamUrl(item.url);
}

/** A URL from the platform's answer; one that does not parse is the platform's fault, not the caller's. */
function upstreamUrl(text: string): URL {
  const url = URL.parse(text);
  if (url === null) throw upstreamFailed("The platform named a media link that is not a valid URL; try again later.");
  return url;
}

/**
 * Page mode: yt-dlp describes the page and ffmpeg remuxes what it chose; or, for a post gallery-dl
 * reads (platforms/post-source.ts, chosen as for `post`), the item's file. Either look-up holds a
 * download slot.
 */
function pageMode(ctx: ApiContext, deps: DownloadDeps, page: URL, platform: PlatformId, wanted: Wanted): Promise<Response> {
  return remuxWithSlot(ctx, deps, () =>
    byTool<RemuxJob | Otherwise>(
      deps,
      page,
      platform,
      () => ytdlpJob(ctx, deps, page, platform, wanted),
      async (record) => ({ otherwise: () => galleryFile(ctx, deps, record, platform, wanted) }),
      // A slideshow's music is what `audio=mp3` asks for; as MP4, its pictures are the post.
      (job) => wanted.output === "mp4" && "plan" in job && job.plan.videoInput === null,
    ),
  );
}

async function ytdlpJob(ctx: ApiContext, deps: DownloadDeps, page: URL, platform: PlatformId, wanted: Wanted): Promise<RemuxJob> {
  await requireTools(deps.tools, ["yt-dlp", "ffmpeg"]);
  // The description (kept from /post, or extracted now and kept) says how many items there are.
  if (wanted.index !== null) requireItem(wanted.index, postItems(await deps.pages.info(page)).length);
  const { info, formats } = await deps.pages.select(page, selectorFor(wanted.format, wanted.output), ctx.request.signal, wanted.index ?? 1);
  const entry = mainEntry(info);
  const plan = planRemux(formats, wanted.output);
  if (wanted.subtitles !== null) plan.subtitles = chooseSubtitle(entry, wanted.subtitles);
  return {
    plan,
    name: wanted.filename ?? `${platform.toLowerCase()}_${infoToPost(info, platform, page).id}`,
    // The unrounded length: the post record's whole seconds would be off by up to half a second.
    durationSec: entry.duration ?? null,
  };
}

type RemuxJob = Pick<RemuxRequest, "plan" | "name" | "durationSec">;
/** What to answer with instead of running ffmpeg, once the download slot is given back. */
type Otherwise = { otherwise: () => Promise<Response> };

/**
 * Holds a download slot while ffmpeg turns the job `prepare` makes into the response; the slot is
 * given back when ffmpeg ends, or at once when anything before fails or `prepare` answers otherwise. Every URL ffmpeg will read
 * is checked first: a page names them, and a page may name an address inside our network.
 */
async function remuxWithSlot(ctx: ApiContext, deps: DownloadDeps, prepare: () => Promise<RemuxJob | Otherwise>): Promise<Response> {
  const release = deps.remuxes.acquire(slotHolder(ctx));
  try {
    const job = await prepare();
    if ("otherwise" in job) {
      release();
      return await job.otherwise();
    }
    // What ffmpeg writes is page mode's, whatever it reads: its bytes are counted as page mode's.
    const inputs = [...job.plan.inputs, ...(job.plan.subtitles ? [job.plan.subtitles.input] : [])];
    await Promise.all(inputs.map((input) => assertFetchable(new URL(input.url), deps.egress)));
    return served(deps, await remuxResponse({ ...job, method: ctx.request.method, signal: ctx.request.signal, onEnd: release }, deps.remux), "page");
  } catch (error) {
    release();
    throw error;
  }
}

/** A download's response as it goes out: counted in its mode, and cut when its client takes nothing. */
function served(deps: DownloadDeps, response: Response, mode: DownloadMode): Response {
  return downloadResponse(cutWhenClientStalls(response, deps.clientStallTimeoutMs), mode);
}
