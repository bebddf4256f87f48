// A Threads post of the web client's query result (page.ts) as the post record (docs/api.md, Post
// record). Pure. The post is the thread item whose `code` is the link's (a result holds the post,
// the author's chain above it and replies), read as FxEmbed's, cobalt's and uriyyo's readers read
// it: `caption.text`, `user.{username, full_name}`; `media_type` 8 is a carousel whose
// `carousel_media[]` slides are in order, 2 a video, 1 a photo, 19 text only; a video's file is
// `video_versions[0].url` (its size `original_width`/`original_height`, its length
// `video_duration`, its poster the first image candidate), a photo's the first of
// `image_versions2.candidates` (largest first).
import { z } from "zod";
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import type { PostMediaItem, PostRecord } from "../records.ts";
import type { ThreadsPostRef } from "./url.ts";

const number = z.number().nullish();
const text = z.string().nullish();
const Media = z.object({
  media_type: number,
  original_width: number,
  original_height: number,
  video_duration: number,
  image_versions2: z.object({
    candidates: z.array(z.object({ url: z.string(), width: number, height: number })).nullish(),
  }).nullish(),
  video_versions: z.array(z.object({ url: z.string() })).nullish(),
});
const Post = Media.extend({
  code: z.string(),
  caption: z.object({ text }).nullish(),
  user: z.object({ username: text, full_name: text }).nullish(),
  carousel_media: z.array(Media).nullish(),
  text_post_app_info: z.object({ is_post_unavailable: z.boolean().nullish() }).nullish(),
});
const Result = z.object({
  data: z.object({
    data: z.object({
      edges: z.array(z.object({ node: z.object({ thread_items: z.array(z.object({ post: z.unknown() })) }) })),
    }),
  }),
});

const carousel = 8;
/** A size or length as the record holds it: whole, or null when the post gives none. */
const whole = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? null : Math.round(value);
const named = (value: string | null | undefined) => value?.trim() || null;

/** The post the results hold for the link's code, or undefined when none does. */
export function postIn(results: readonly unknown[], ref: ThreadsPostRef): unknown {
  for (const result of results) {
    const parsed = Result.safeParse(result);
    if (!parsed.success) continue;
    for (const { node } of parsed.data.data.data.edges) {
      const item = node.thread_items.find(({ post }) => (post as { code?: unknown } | null)?.code === ref.code);
      if (item !== undefined) return item.post;
    }
  }
  return undefined;
}

/** A photo or video of the post or of a carousel's slide; null for one without either (text, a GIF sticker). */
function itemOf(media: z.infer<typeof Media>): PostMediaItem | null {
  const image = media.image_versions2?.candidates?.[0];
  const video = media.video_versions?.[0];
  if (video !== undefined) {
    const height = whole(media.original_height);
    const qualityLabel = height === null ? "unknown" : `${height}p`;
    return {
      type: "video",
      url: video.url,
      posterUrl: image?.url ?? null,
      width: whole(media.original_width),
      height,
      durationSec: whole(media.video_duration),
      videoVariants: [{ qualityLabel, formatId: qualityLabel, contentType: "video/mp4" }],
      altText: null,
    };
  }
  if (image === undefined) return null;
  return {
    type: "photo",
    url: image.url,
    posterUrl: null,
    width: whole(image.width ?? media.original_width),
    height: whole(image.height ?? media.original_height),
    durationSec: null,
    videoVariants: [],
    altText: null,
  };
}

/** The record of the post the link names, from the page's preloaded results or the query's answer; 404 when they hold none. */
export function threadsPost(results: readonly unknown[], ref: ThreadsPostRef): PostRecord {
  const found = postIn(results, ref);
  if (found === undefined) {
    throw new ApiError("not_found", `Threads shows no post ${ref.code}; it may have been deleted, or be private.`);
  }
  const parsed = Post.safeParse(found);
  if (!parsed.success) {
    throw upstreamFailed("Threads described the post in a form this service does not understand; try again later.", {
      cause: parsed.error,
    });
  }
  const post = parsed.data;
  if (post.text_post_app_info?.is_post_unavailable === true) {
    throw new ApiError("post_unavailable", `Threads does not show post ${ref.code} to visitors.`);
  }
  const slides = post.media_type === carousel ? (post.carousel_media ?? []) : [post];
  const media = slides.flatMap((slide) => itemOf(slide) ?? []);
  const firstVideo = media.find((item) => item.type === "video");
  const user = named(post.user?.username);
  return {
    platform: "THREADS",
    id: post.code,
    url: `https://www.threads.com/@${user ?? "_"}/post/${post.code}`,
    text: named(post.caption?.text),
    authorName: named(post.user?.full_name) ?? user,
    durationSec: firstVideo?.durationSec ?? null,
    posterUrl: firstVideo?.posterUrl ?? media[0]?.url ?? null,
    needsServerProcessing: false,
    videoVariants: firstVideo?.videoVariants ?? [],
    imageUrls: media.flatMap((item) => item.type === "photo" ? item.url! : []),
    media,
    subtitles: [],
    card: null,
  };
}
