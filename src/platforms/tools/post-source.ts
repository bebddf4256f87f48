// A source built from two: yt-dlp first, gallery-dl second, on the platforms whose row reads both
// (`reader: "yt-dlp+gallery-dl"`). yt-dlp is made for video and audio, gallery-dl for photos,
// carousels and galleries. A photo-shaped link (the row's `photoShape`) goes to gallery-dl alone
// (platforms/sources.ts); any other to yt-dlp, and to gallery-dl too when yt-dlp finds no video in
// it, or fails in a way gallery-dl may not (its extractor out of date with the site, a logged-out
// path that Debian's yt-dlp cannot take), or reads only sound in it (a slideshow behind a video's
// link, which yt-dlp gives as its music). The rule is data (`ytdlpThenGallery`). A download's `index` names an
// item of the record `describe` gives by that rule, whichever tool's it is.
//
// gallery-dl keeps the platform's order of photos and videos, and gives each video as the file
// the platform serves (a merged MP4), which the download operation relays as it is. yt-dlp
// cannot describe such a carousel at all: a picture in it has no format, and yt-dlp fails the
// whole post.
import type { ErrorCode } from "../../http/errors.ts";
import { ApiError } from "../../http/problem.ts";
import type { RecordSource } from "./gallerydl/reader.ts";
import type { PlatformId, PostRecord } from "../records.ts";
import type { DescribeOptions, Link, Plan, Source, Wanted } from "../source.ts";
import { rowOf } from "../table.ts";

/** When the second source is asked, and whose answer stands. */
export interface FallbackRule {
  /** The first's failures after which the second is asked. */
  handOver: ReadonlySet<ErrorCode>;
  /** Of those, the ones after which the second's own failure is told (unless it failed the same way); after the others the first's stands. */
  secondFailureTold: ReadonlySet<ErrorCode>;
  /** After a handed-over failure, whether the second's record is the answer; else the first's failure stands. */
  secondAnswers: (record: PostRecord) => boolean;
  /** After the first answered with sound alone, whether the second's record says more (its failure is then no answer). */
  saysMoreThanSound: (record: PostRecord) => boolean;
}

export const ytdlpThenGallery: FallbackRule = {
  // No video in the post (or a list of nothing), or a failure of yt-dlp's own. A platform's refusal, a missing post and the time cap stand.
  handOver: new Set<ErrorCode>(["unsupported_url", "no_media", "upstream_failed"]),
  // Past "no video" gallery-dl's failure says more; past a failure of yt-dlp's own, yt-dlp's does.
  secondFailureTold: new Set<ErrorCode>(["unsupported_url", "no_media"]),
  // When gallery-dl finds nothing either, yt-dlp's answer stands.
  secondAnswers: (record) => record.media.length > 0,
  // Pictures say more than the sound alone.
  saysMoreThanSound: (record) => record.media.some((item) => item.type !== "video"),
};

/** Whether gallery-dl reads posts of the platform beside yt-dlp (X has the tweet extractor). */
export function galleryReads(platform: PlatformId): boolean {
  return rowOf(platform)?.reader === "yt-dlp+gallery-dl";
}

/** Whether the link's shape says it is a post of photos (or of photos and videos). */
export function isPhotoShaped(page: URL, platform: PlatformId): boolean {
  return rowOf(platform)?.photoShape?.test(page.pathname) ?? false;
}

/** A record of nothing but sound: every item a video whose variants are audio only (or none). */
export function soundOnlyRecord(record: PostRecord): boolean {
  return record.media.every((item) =>
    item.type === "video" && item.videoVariants.every((variant) => variant.qualityLabel === "audio")
  );
}

/** A plan of nothing but sound where a picture could be the answer: a slideshow's music is what `audio=mp3` asks for. */
function soundOnlyPlan(wanted: Wanted): (plan: Plan) => boolean {
  return (plan) => wanted.output === "mp4" && plan.kind === "remux" && plan.ffmpeg.videoInput === null;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const settle = <T>(promise: Promise<T>): Promise<Outcome<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/** The second's record when the rule makes it the answer to the first's outcome; null when the first's stands. Throws the second's failure when that is told. */
async function secondOpinion<T>(
  rule: FallbackRule,
  first: Outcome<T>,
  soundOnly: (value: T) => boolean,
  askSecond: () => Promise<PostRecord>,
): Promise<PostRecord | null> {
  if (first.ok) {
    if (!soundOnly(first.value)) return null;
    const second = await settle(askSecond());
    return second.ok && rule.saysMoreThanSound(second.value) ? second.value : null;
  }
  const failed = first.error;
  if (!(failed instanceof ApiError && rule.handOver.has(failed.code))) return null;
  const second = await settle(askSecond());
  if (second.ok) return rule.secondAnswers(second.value) ? second.value : null;
  const sameWay = second.error instanceof ApiError && second.error.code === failed.code;
  if (rule.secondFailureTold.has(failed.code) && !sameWay) throw second.error;
  return null;
}

/** The first's answer, or its failure thrown. */
function answer<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
}

/**
 * A source that asks `first`, and `second` as `rule` says; both extract, so one extraction slot covers both.
 *
 * An item a download names by `index` is the item of the record `describe` gives (the one whose `downloadUrl`s, picker
 * and job files name it), not of the first's description: where the second's record stands for a post the first reads
 * as sound alone (a slideshow's pictures, then its music), the first counts one item where the record lists them all.
 * Without `index` the first's plan is asked first, so that its sound answers `audio` (a plan of an item reads the
 * first's description anyway, so reading it first costs no run).
 */
export function fallbackSource(first: Source, second: RecordSource, rule: FallbackRule): Source {
  /** The record `describe` gives, and whether the second made it. */
  async function recordOf(link: Link, options: DescribeOptions): Promise<{ record: PostRecord; bySecond: boolean }> {
    const outcome = await settle(first.describe(link, options));
    const record = await secondOpinion(rule, outcome, soundOnlyRecord, () => second.describe(link, options));
    return record === null ? { record: answer(outcome), bySecond: false } : { record, bySecond: true };
  }
  return {
    tools: (link: Link) => first.tools(link),
    extracts: first.extracts || second.extracts,
    describe: async (link, options = {}) => (await recordOf(link, options)).record,
    async plan(link, wanted, asker) {
      if (wanted.index !== null) {
        const { record, bySecond } = await recordOf(link, { signal: asker.signal });
        if (bySecond) return second.planFromRecord(record, link, wanted);
      }
      const outcome = await settle(first.plan(link, wanted, asker));
      const record = await secondOpinion(
        rule,
        outcome,
        soundOnlyPlan(wanted),
        () => second.describe(link, { signal: asker.signal }),
      );
      return record === null ? answer(outcome) : second.planFromRecord(record, link, wanted);
    },
  };
}
