// The words of a job, agreed before the queue, the API, the archive and the expansions were built
// (docs/architecture.md, Jobs). A *job* is one caller's many links, run by the queue every instance
// shares (pg-boss on the store); each link the job runs is an *item*, in the order the caller gave
// the links and, within a link that stands for many posts (a playlist, a channel, a profile, a
// thread), in the order its *expansion* gives them. An item is one counted call of the job's key.
import type { ClipRange } from "../http/clip-range.ts";
import type { PostRecord } from "../platforms/records.ts";
import type { OutputKind } from "../platforms/source.ts";
import type { TranscriptFormat } from "../operations/transcript.ts";

export type JobStatus = "queued" | "running" | "completed" | "failed" | "cancelled";
export type ItemStatus = "queued" | "running" | "done" | "failed" | "cancelled";

/** What a caller asks of a job (POST /api/v1/jobs), once checked. */
export interface JobRequest {
  /** The links as the caller gave them: posts, or links that stand for many posts. */
  urls: readonly URL[];
  /** Whether the archive holds each item's file (true) or only records.json (false). */
  files: boolean;
  /** As `download` takes them: a format id, quality label or selector; null for the default. */
  format: string | null;
  /** The file each item's archive entry holds: as served (MP4), or sound only. */
  output: OutputKind;
  /** The account's webhook endpoint that alone hears of this job, or null for every endpoint of the account that takes the event. */
  webhook?: string | null;
  /** When the job starts (ISO 8601 UTC), or null: at once. Its expansion waits on the queue until then. */
  runAt?: string | null;
  /** Whether a post link of a platform with threads stands for its author's thread (true, and for jobs older than the field) or for the post alone. */
  threads?: boolean;
  /** The part of each item's video its file holds, as `download`'s `start` and `end` give it; null (and for older jobs): all of it. */
  clip?: ClipRange | null;
  /** Each item's transcript beside its files, as `transcript` gives it (its language, null: the first the post lists; its format); null (and for older jobs): none. */
  transcripts?: { lang: string | null; format: TranscriptFormat } | null;
  /** Where the caller reached the service (its origin): the start of the links the job's events carry when PUBLIC_URL is unset. */
  linkBase?: string;
}

/** Why an item has no record: its problem as the API would have answered it. */
export interface ItemProblem {
  code: string;
  detail: string;
}

/** One item of a job, as the store keeps it and the API shows it. */
export interface JobItem {
  /** 1-based place in the job's reading order. */
  position: number;
  url: string;
  status: ItemStatus;
  /** The post's record once the item is done (its signed links are added when it is shown). */
  post: PostRecord | null;
  problem: ItemProblem | null;
}

/** A job as the store keeps it and the API shows it, without its items. */
export interface Job {
  id: string;
  accountId: string;
  apiKeyId: string;
  status: JobStatus;
  request: JobRequest;
  createdAt: Date;
  finishedAt: Date | null;
  /** `linksRead`: how many of the request's links, in its order, are read and have their items. */
  counts: { total: number; done: number; failed: number; linksRead: number };
  /** Whether every link the job takes is read: its items are all there. */
  expanded: boolean;
  /** False when an expansion could not reach every post (an X thread without a session); `incomplete` says why. */
  complete: boolean;
  incomplete: string | null;
  /** The watch whose run made this job of the posts it found, or null; its end is told as `watch.found`. */
  watchId: string | null;
}
