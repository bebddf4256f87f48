// A note of the page's state (state.ts) as the post record (docs/api.md, Post record). Pure. The
// note is `note.noteDetailMap[<id>].note`, read as yt-dlp's extractor (xiaohongshu.py) and cobalt's
// read it: `type` "video" or "normal" (photos), `title`, `desc`, `user.nickname`; photos in
// `imageList` (each `urlDefault`, else the `WB_DFT` entry of its `infoList`, and its size); a
// video's files in `video.media.stream.<codec>[]` (`masterUrl` and its `backupUrls`, size, bit
// rate, length in ms; the length in seconds also in `video.capa`), its cover the first photo. The
// site writes its CDN's links with http:; they are fetched with https:.
import { z } from "zod";
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import type { PostMediaItem, PostRecord, PostVideoVariant } from "../records.ts";
import type { NoteRef } from "./url.ts";

const number = z.number().nullish();
const text = z.string().nullish();
const Stream = z.object({
  masterUrl: text,
  backupUrls: z.array(z.string()).nullish(),
  width: number,
  height: number,
  videoBitrate: number,
  duration: number,
});
const Image = z.object({
  urlDefault: text,
  url: text,
  width: number,
  height: number,
  infoList: z.array(z.object({ imageScene: text, url: text })).nullish(),
});
const Note = z.object({
  type: text,
  title: text,
  desc: text,
  user: z.object({ nickname: text, userId: text }).nullish(),
  imageList: z.array(Image).nullish(),
  video: z.object({
    media: z.object({ stream: z.record(z.string(), z.array(Stream).nullish()).nullish() }).nullish(),
    /** The video's length in seconds, where a stream gives none. */
    capa: z.object({ duration: number }).nullish(),
  }).nullish(),
});
const State = z.object({
  note: z.object({ noteDetailMap: z.record(z.string(), z.object({ note: z.unknown() }).nullish()) }),
});

type Stream = z.infer<typeof Stream>;

/** The record, and each video variant's file (by format id) for the download: its link first, then its CDN's backups. */
export interface XiaohongshuPost {
  record: PostRecord;
  files: Map<string, string[]>;
}

/** Codecs in the order a variant of each is offered: H.264 plays everywhere, H.265 and AV1 are smaller. */
const codecs = ["h264", "h265", "av1"] as const;

const https = (link: string) => link.replace(/^http:\/\//i, "https://");
/** A size or length as the record holds it: whole, or null when the page gives none. */
const whole = (
  value: number | null | undefined,
) => (value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value));
const named = (value: string | null | undefined) => value?.trim() || null;

function photoOf(image: z.infer<typeof Image>): PostMediaItem | null {
  const link = image.urlDefault || image.infoList?.find((info) => info.imageScene === "WB_DFT")?.url || image.url;
  if (!link) return null;
  return {
    type: "photo",
    url: https(link),
    posterUrl: null,
    width: whole(image.width),
    height: whole(image.height),
    durationSec: null,
    videoVariants: [],
    altText: null,
  };
}

/** A variant per codec and height, the best bit rate of each, best first; and each one's file. */
function variantsOf(
  streams: Partial<Record<string, Stream[] | null>>,
): { variant: PostVideoVariant; files: string[]; stream: Stream }[] {
  const chosen = new Map<string, { variant: PostVideoVariant; files: string[]; stream: Stream }>();
  for (const codec of codecs) {
    const ranked = (streams[codec] ?? []).filter((stream) => stream.masterUrl).sort((a, b) =>
      (b.height ?? 0) - (a.height ?? 0) || (b.videoBitrate ?? 0) - (a.videoBitrate ?? 0)
    );
    for (const stream of ranked) {
      const qualityLabel = stream.height ? `${whole(stream.height)}p` : "unknown";
      const formatId = `${codec}-${qualityLabel}`;
      const files = [stream.masterUrl!, ...(stream.backupUrls ?? [])].map(https);
      if (!chosen.has(formatId)) {
        chosen.set(formatId, { variant: { qualityLabel, formatId, contentType: "video/mp4" }, files, stream });
      }
    }
  }
  return [...chosen.values()];
}

/**
 * The note's record; 404 when the page shows no such note to a visitor. `onMediaHost` tells the
 * site's CDN from elsewhere: a page whose token has expired may still give the note's words, but
 * placeholder pictures of the site's own in place of its photos, and then shows no note.
 */
export function noteToPost(state: unknown, ref: NoteRef, onMediaHost: (link: string) => boolean): XiaohongshuPost {
  const parsed = State.safeParse(state);
  const found = parsed.success ? parsed.data.note.noteDetailMap[ref.id]?.note : undefined;
  if (found === undefined || found === null) throw notShown(ref);
  const note = Note.safeParse(found);
  if (!note.success) {
    throw upstreamFailed(
      "Xiaohongshu described the note in a form this service does not understand; try again later.",
      { cause: note.error },
    );
  }
  const { type, title, desc, user, imageList, video } = note.data;
  const photos = (imageList ?? []).flatMap((image) => photoOf(image) ?? []).filter((photo) => onMediaHost(photo.url!));
  const variants = type === "video" ? variantsOf(video?.media?.stream ?? {}) : [];
  if (type === "video" && variants.length === 0) {
    throw upstreamFailed("Xiaohongshu named no file of the note's video; try again later.");
  }
  if (type !== "video" && photos.length === 0) throw notShown(ref);
  const best = variants[0];
  const videoVariants = variants.map((each) => each.variant);
  const media: PostMediaItem[] = best
    ? [{
      type: "video",
      url: best.files[0]!,
      posterUrl: photos[0]?.url ?? null,
      width: whole(best.stream.width),
      height: whole(best.stream.height),
      durationSec: whole((best.stream.duration ?? Number.NaN) / 1000) ?? whole(video?.capa?.duration),
      videoVariants,
      altText: null,
    }]
    : photos;
  const words = [named(title), named(desc)].filter((part) => part !== null);
  return {
    record: {
      platform: "XIAOHONGSHU",
      id: ref.id,
      url: `https://www.xiaohongshu.com/explore/${ref.id}`,
      text: words.length > 0 ? words.join("\n\n") : null,
      authorName: named(user?.nickname) ?? named(user?.userId),
      durationSec: media[0]?.durationSec ?? null,
      posterUrl: media[0]?.posterUrl ?? photos[0]?.url ?? null,
      needsServerProcessing: false,
      videoVariants,
      imageUrls: best ? [] : photos.map((photo) => photo.url!),
      media,
      subtitles: [],
      card: null,
    },
    files: new Map(variants.map((each) => [each.variant.formatId, each.files])),
  };
}

export function notShown(ref: NoteRef): ApiError {
  const token = ref.access.has("xsec_token")
    ? "its link's xsec_token may have expired, "
    : "the link carries no xsec_token, ";
  return new ApiError(
    "post_unavailable",
    `Xiaohongshu did not show note ${ref.id}: ${token}or the note is private or removed. Copy the link again from the app's Share (it carries a fresh xsec_token) and try that.`,
  );
}
