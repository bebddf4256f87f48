// The one seam from a link to bytes. A source (a platform's APIs or pages read by the service, yt-dlp,
// gallery-dl, or a fallback made of two of them) describes a post and plans a download; a plan is a relay of
// one file as its host serves it, or a remux of inputs by ffmpeg; a runner (media/) carries it out
// with the slot its kind costs. Which source reads a link is its platform row's `reader`.
import type { ClipRange } from "../http/clip-range.ts";
import type { SlotHolder } from "../limits/slots.ts";
import type { RemuxPlan } from "../media/ffmpeg.ts";
import type { Plan } from "../media/plan.ts";
import type { ToolName } from "../processes/tools.ts";
import type { PlatformId, PostRecord } from "./records.ts";

/** The output a download asks for: the file as MP4 (or as its host serves it), or sound only. */
export type OutputKind = RemuxPlan["output"];

/** What a download asks a source for. */
export interface Wanted {
  output: OutputKind;
  /** A format id or quality label of the record's variants, or a yt-dlp selector; null for the default. */
  format: string | null;
  /** Which item of the post (1-based, as in the record's `media`); null for the default one. */
  index: number | null;
  /** Language of the subtitle track to embed; null for none. */
  subtitles: string | null;
  /** The caller's file name (without extension); null for the source's `<platform>_<id>[_<index>]`. */
  filename: string | null;
  /** The part of the media to send (`start`, `end`); null for all of it. A photo has none (400). */
  clip: ClipRange | null;
  /** The video without its sound (`mute`); unset is false. */
  mute?: boolean;
}

/** A link a source is asked about, with the platform its row names. */
export interface Link {
  url: URL;
  platform: PlatformId;
}

// The plans' kinds are declared beside their runner (media/ may not import platforms/).
export type { Plan, RelayPlan, RemuxJob } from "../media/plan.ts";

/** Whose download a plan is for: its request's signal, and who holds its extraction slot (null: none). */
export interface Asker {
  signal: AbortSignal;
  holder: SlotHolder | null;
}

/**
 * How a download asks a source for its plan, the same for the handler and for a source that hands
 * an item to another (X gives a video it has only as HLS to yt-dlp): the source's tools checked
 * (503 `tool_missing`), the asker's extraction slot held while a source that extracts plans. One
 * is built at start (operations/ask.ts `createAsk`) and handed to the handler and to those sources.
 */
export type Ask = (source: Source, link: Link, wanted: Wanted, asker: Asker) => Promise<Plan>;

export interface DescribeOptions {
  /** Skip what the source keeps (the platform check wants to know how the platform answers now). */
  uncached?: boolean;
  signal?: AbortSignal;
}

/** A post's caption track as the source that read the post fetched it: its language, its kind, its text and format. */
export interface CaptionText {
  lang: string;
  /** True for captions the platform made automatically. */
  auto: boolean;
  format: "vtt" | "srt";
  text: string;
}

export interface Source {
  /** The media tools this source runs first for the link (checked before it is asked: 503 `tool_missing`). */
  tools(link: Link): readonly ToolName[];
  /** Whether asking it runs an extraction, which holds an extraction slot of the caller's. */
  readonly extracts: boolean;
  describe(link: Link, options?: DescribeOptions): Promise<PostRecord>;
  /**
   * The plan for the wanted item and output. A relay may be asked for as MP3: the runner then
   * remuxes the file (media/plan.ts `relayAsSound`). A source that hands the link to another asks
   * it through the `Ask` it was built with, for the same `asker`.
   */
  plan(link: Link, wanted: Wanted, asker: Asker): Promise<Plan>;
  /**
   * The post's caption track of `lang` (null: the first its record lists), fetched through the
   * source's own client, where the source reads captions itself (a video embed's caption files); without
   * it, a transcript is read from yt-dlp's tracks. 404 `no_transcript` for a post with none.
   */
  captions?(link: Link, lang: string | null, signal: AbortSignal): Promise<CaptionText>;
}

/**
 * The posts a link stands for when a job takes it (a playlist, a channel, a profile, a thread), in
 * reading order, at most `limit`. `complete` is false when the source could not reach every post
 * it knows of; `incomplete` then says why, in words for the job's caller.
 */
export interface Expansion {
  posts: URL[];
  complete: boolean;
  incomplete: string | null;
  /**
   * The title the listing gives each post as the post's own, in `posts`' order (null where it gives
   * none): a feed's title for its entry, which stands over the text of the page the entry links to,
   * as yt-dlp's own runs take it. Absent when the listing gives none.
   */
  titles?: (string | null)[];
}

/**
 * A link its expansion read that is one post: the post's record, as `describe` would have made it,
 * which the job's item takes instead of reading the link a second time.
 */
export interface OnePost {
  post: PostRecord;
}

/**
 * A source that can say which posts a link stands for; null when the link is one post it did not read (a OnePost
 * when it did). `threads` false asks for a post link as the one post it is, not its author's thread (the job's `threads`).
 */
export interface Expands<Answer extends Expansion | OnePost = Expansion | OnePost> {
  expand(link: Link, limit: number, signal: AbortSignal, threads?: boolean): Promise<Answer | null>;
  /**
   * False where `expand` answers null at once, reading nothing (a post link no listing stands for):
   * then the job takes no extraction slot to ask it. Absent: any link may need a read.
   */
  mayExpand?(link: Link): boolean;
}
