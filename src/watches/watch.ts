// The words of a watch (docs/api.md, Watches): a link that stands for many posts (a channel, a
// playlist, a profile) expanded again on a repeat, each run reporting only the posts it has not
// seen before. A run that finds some makes a job of them (its items counted as any job's) whose
// end is told as `watch.found`; the first run records what is there and reports nothing.
import type { JobRequest } from "../jobs/job.ts";

/** How often a watch runs: every so many seconds, or at the times of a cron line (UTC). */
export type Repeat = { everyS: number } | { cron: string };

/** Why a watch its owner paused is paused, as the watch says it. */
export const OWNER_PAUSE = "paused by its owner";

/** What each run's job takes from its watch: as a job takes them, without links or `runAt`. */
export type WatchJobRequest = Pick<JobRequest, "files" | "format" | "output" | "clip" | "linkBase"> & {
  webhook: string | null;
};

/** What a caller asks of a watch (POST /api/v1/watches), once checked. */
export interface WatchRequest {
  url: URL;
  repeat: Repeat;
  job: WatchJobRequest;
}

/** A watch as the store keeps it and the API shows it. */
export interface Watch {
  id: string;
  accountId: string;
  apiKeyId: string;
  url: URL;
  repeat: Repeat;
  job: WatchJobRequest;
  createdAt: Date;
  /** When the next run is due (while paused: when it was due when it paused). */
  nextRunAt: Date;
  lastRunAt: Date | null;
  runs: number;
  /** When a run first saw the link's posts: what was there then is never reported. */
  baselinedAt: Date | null;
  /** Why the latest run could not look (its link could not be expanded); null when it looked. */
  lastProblem: string | null;
  pausedAt: Date | null;
  /** Who paused it and why: its owner, or a run that found its key passive or expired. */
  pausedReason: string | null;
}
