// Bluesky's answer to app.bsky.feed.getPostThread, as the post record (docs/api.md, Post record).
// Pure. A post's media are in its `embed` view: images (each with its alt text), a video (an HLS
// playlist on video.bsky.app), a link card, a quoted post (whose own media follow the post's),
// or a quote beside media of its own. Fields this service does not read are ignored: the AppView
// adds some now and then.
import { z } from "zod";
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import type { LinkCard, PostMediaItem, PostRecord } from "../records.ts";
import type { BlueskyPostRef } from "./url.ts";

/**
 * The record, and for each of its media items the HLS playlist of a video (null for a photo); its
 * author's DID, and the caption files of its own video (blobs of the author's repository).
 */
export interface BlueskyPost {
  record: PostRecord;
  playlists: (string | null)[];
  did: string;
  captions: Caption[];
}

/** A caption file of a video: its language, and the CID of its blob (WebVTT). */
export interface Caption {
  lang: string;
  cid: string;
}

const AspectRatio = z.object({ width: z.number().int().positive(), height: z.number().int().positive() });
const ImagesView = z.object({
  $type: z.literal("app.bsky.embed.images#view"),
  images: z.array(z.object({ fullsize: z.string(), alt: z.string().optional(), aspectRatio: AspectRatio.optional() })),
});
const VideoView = z.object({
  $type: z.literal("app.bsky.embed.video#view"),
  playlist: z.string(),
  thumbnail: z.string().optional(),
  alt: z.string().optional(),
  aspectRatio: AspectRatio.optional(),
});
const ExternalView = z.object({
  $type: z.literal("app.bsky.embed.external#view"),
  external: z.object({
    uri: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    thumb: z.string().optional(),
  }),
});
/** A quoted post as it is shown; `embeds` holds its own embed's view. Not found or blocked, it has none. */
const QuotedRecord = z.object({ embeds: z.array(z.unknown()).optional() });
const RecordView = z.object({ $type: z.literal("app.bsky.embed.record#view"), record: QuotedRecord });
const RecordWithMediaView = z.object({
  $type: z.literal("app.bsky.embed.recordWithMedia#view"),
  media: z.unknown(),
  record: z.object({ record: QuotedRecord }),
});

/** `app.bsky.embed.video#caption` of the post's record: a language and a WebVTT blob. */
const CaptionRecord = z.object({
  lang: z.string().min(1),
  file: z.object({ ref: z.object({ $link: z.string().min(1) }), mimeType: z.literal("text/vtt") }),
});
const VideoRecord = z.object({ $type: z.literal("app.bsky.embed.video"), captions: z.array(z.unknown()).optional() });

const PostView = z.object({
  uri: z.string(),
  author: z.object({ did: z.string(), handle: z.string(), displayName: z.string().optional() }),
  record: z.object({ text: z.string().optional(), embed: z.unknown().optional() }),
  embed: z.unknown().optional(),
});
const ThreadAnswer = z.object({
  thread: z.discriminatedUnion("$type", [
    z.object({ $type: z.literal("app.bsky.feed.defs#threadViewPost"), post: PostView }),
    z.object({ $type: z.literal("app.bsky.feed.defs#notFoundPost") }),
    z.object({ $type: z.literal("app.bsky.feed.defs#blockedPost") }),
  ]),
});

interface Item {
  media: PostMediaItem;
  playlist: string | null;
}

/** What an embed view shows: media items, and the link card when it is one. */
interface Shown {
  items: Item[];
  card: LinkCard | null;
}

const nothing: Shown = { items: [], card: null };
const named = (text: string | undefined) => text?.trim() || null;

function photo(image: z.infer<typeof ImagesView>["images"][number]): Item {
  const size = image.aspectRatio ?? { width: null, height: null };
  return {
    media: {
      type: "photo",
      url: image.fullsize,
      posterUrl: null,
      ...size,
      durationSec: null,
      videoVariants: [],
      altText: named(image.alt),
    },
    playlist: null,
  };
}

function video(view: z.infer<typeof VideoView>): Item {
  const size = view.aspectRatio ?? { width: null, height: null };
  // One variant: page mode remuxes the playlist's best stream into MP4 (format `hls`).
  const variant = {
    qualityLabel: size.height === null ? "unknown" : `${size.height}p`,
    formatId: "hls",
    contentType: "video/mp4",
  };
  return {
    media: {
      type: "video",
      url: null,
      posterUrl: view.thumbnail ?? null,
      ...size,
      durationSec: null,
      videoVariants: [variant],
      altText: named(view.alt),
    },
    playlist: view.playlist,
  };
}

/** An embed's view, whatever kind it is; `quoted` is false inside a quote, whose own quote is not followed. */
function shown(embed: unknown, quoted = true): Shown {
  const type = (embed as { $type?: unknown } | null)?.$type;
  const as = <T extends z.ZodType>(schema: T) => schema.parse(embed) as z.infer<T>;
  switch (type) {
    case "app.bsky.embed.images#view":
      return { items: as(ImagesView).images.map(photo), card: null };
    case "app.bsky.embed.video#view":
      return { items: [video(as(VideoView))], card: null };
    case "app.bsky.embed.external#view": {
      const { external } = as(ExternalView);
      return {
        items: [],
        card: {
          url: external.uri,
          title: named(external.title),
          description: named(external.description),
          imageUrl: external.thumb ?? null,
        },
      };
    }
    case "app.bsky.embed.record#view":
      return { items: quoted ? quotedItems(as(RecordView).record) : [], card: null };
    case "app.bsky.embed.recordWithMedia#view": {
      const view = as(RecordWithMediaView);
      const own = shown(view.media, false);
      return { items: [...own.items, ...(quoted ? quotedItems(view.record.record) : [])], card: own.card };
    }
    default:
      return nothing;
  }
}

/** A quoted post's photos and videos (its link card is its own, not the post's). */
function quotedItems(record: z.infer<typeof QuotedRecord>): Item[] {
  return (record.embeds ?? []).flatMap((embed) => shown(embed, false).items);
}

/**
 * The caption files of the post's own video (its record's `app.bsky.embed.video`, alone or as the
 * media beside a quote), each language once; a caption in a form the lexicon does not give is skipped.
 */
function captionsOf(embed: unknown): Caption[] {
  const media = (embed as { $type?: unknown; media?: unknown } | null)?.$type === "app.bsky.embed.recordWithMedia"
    ? (embed as { media?: unknown }).media
    : embed;
  const video = VideoRecord.safeParse(media);
  const captions = (video.success ? video.data.captions ?? [] : []).flatMap((each) => {
    const caption = CaptionRecord.safeParse(each);
    return caption.success ? [{ lang: caption.data.lang, cid: caption.data.file.ref.$link }] : [];
  });
  return captions.filter((caption, at) => captions.findIndex((other) => other.lang === caption.lang) === at);
}

export function threadToPost(answer: unknown, ref: BlueskyPostRef): BlueskyPost {
  const parsed = ThreadAnswer.safeParse(answer);
  if (!parsed.success) {
    throw upstreamFailed("Bluesky answered in a form this service does not understand; try again later.", {
      cause: parsed.error,
    });
  }
  const { thread } = parsed.data;
  if (thread.$type === "app.bsky.feed.defs#notFoundPost") throw notFound(ref);
  if (thread.$type === "app.bsky.feed.defs#blockedPost") {
    throw new ApiError(
      "post_unavailable",
      `Bluesky does not show post ${ref.rkey}: its author blocks others from seeing it, or is blocked. Only public posts can be fetched.`,
    );
  }
  const { post } = thread;
  let view: Shown;
  try {
    view = shown(post.embed);
  } catch (error) {
    throw upstreamFailed(
      "Bluesky described the post's media in a form this service does not understand; try again later.",
      { cause: error },
    );
  }
  const media = view.items.map((item) => item.media);
  // Only a video of the post's own is the first item that `subtitles` speaks of.
  const captions = media[0]?.type === "video" ? captionsOf(post.record.embed) : [];
  const firstVideo = media.find((item) => item.type === "video");
  const photos = media.flatMap((item) => (item.type === "photo" && item.url !== null ? [item.url] : []));
  return {
    record: {
      platform: "BLUESKY",
      id: ref.rkey,
      url: `https://bsky.app/profile/${post.author.handle}/post/${ref.rkey}`,
      text: post.record.text ?? null,
      authorName: named(post.author.displayName) ?? post.author.handle,
      durationSec: null,
      posterUrl: firstVideo?.posterUrl ?? photos[0] ?? null,
      needsServerProcessing: firstVideo !== undefined,
      videoVariants: firstVideo?.videoVariants ?? [],
      imageUrls: photos,
      media,
      subtitles: captions.map(({ lang }) => ({ lang, name: null, auto: false })),
      card: view.card,
    },
    playlists: view.items.map((item) => item.playlist),
    did: post.author.did,
    captions,
  };
}

export function notFound(ref: BlueskyPostRef): ApiError {
  return new ApiError(
    "not_found",
    `Bluesky has no post ${ref.rkey} by ${ref.actor}; it may have been deleted. Check the link.`,
  );
}
