// What runs a job, on whichever instance the queue hands it to: first its expansion (its links
// into the posts they stand for, as items in reading order), then each item, one counted call of
// the job's key that looks its post up as `post` does. The queue carries the ids; the rows say
// what is left to do, so an item run twice (its instance died halfway) is settled and counted once.
import { type PostDeps, postRecord } from "../operations/post.ts";
import { asking, platformOf } from "../operations/ask.ts";
import { errorTable } from "../http/errors.ts";
import { ApiError } from "../http/problem.ts";
import { createSlots, type SlotHolder, type Slots, slotsPerTier } from "../limits/slots.ts";
import type { Logger } from "../log.ts";
import type { Expands, Expansion, Link, Source } from "../platforms/source.ts";
import { rowOf, standsForMany } from "../platforms/table.ts";
import type { Db, Queryable } from "../store/db.ts";
import { addItems, claimItem, countItem, finishIfSettled, type ItemOutcome, jobOf, settleItem } from "./store.ts";
import type { ItemProblem, Job } from "./job.ts";
import type { Queue } from "../queue/queue.ts";
import { whenSlotFrees } from "./slot-turn.ts";
import { jobMaxItemsOf } from "./request.ts";

const EXPANSIONS = "job-expansions";
const ITEMS = "job-items";

/**
 * Items of one key that run at once on an instance, by tier: its fair share of the instance's
 * job work. An item that extracts also holds one of the key's extraction slots (slotsPerTier).
 */
export const JOB_ITEMS_AT_ONCE: Readonly<Record<string, number>> = { FREE: 2, PRO: 8, GOLD: 32 };

export interface JobSettings {
  /** Items this instance runs at once, of every key. */
  concurrency: number;
  /** The instance's extraction slots: at most half go to jobs. */
  extractionSlots: number;
}

/** Who hears of each settled item (`position`) and expansion (null): the webhooks' side, jobs/events.ts. */
export interface JobEvents {
  settled(jobId: string, position: number | null): Promise<void>;
}

export interface JobDeps extends PostDeps {
  db: Db;
  log: Logger;
  now: () => Date;
  settings: JobSettings;
  /** Told of each settled item and expansion: the webhooks' side (jobs/events.ts). */
  events?: JobEvents;
}

export interface Jobs {
  /** Queues the expansion of a job just recorded, to start `startAfterS` seconds from now (its `runAt`). */
  queueExpansion(jobId: string, startAfterS?: number): Promise<void>;
  /** Starts this instance's workers on the queue. */
  work(): Promise<void>;
}

export function createJobs(deps: JobDeps, queue: Queue): Jobs {
  // Jobs' extractions hold a slot of the key (as any call does) and one of the jobs' half.
  const itemDeps: JobDeps = { ...deps, extractions: withinShare(jobsShare(deps.settings), deps.extractions) };
  return {
    queueExpansion: (jobId, startAfterS) => queue.send(EXPANSIONS, [{ data: { jobId }, startAfterS }]),
    async work() {
      await queue.work<{ jobId: string }>({
        queue: EXPANSIONS,
        concurrency: 2,
        run: ({ jobId }, attempt) => expand(itemDeps, queue, jobId, attempt.last),
      });
      await queue.work<{ jobId: string; position: number }>({
        queue: ITEMS,
        concurrency: deps.settings.concurrency,
        groups: { perTier: JOB_ITEMS_AT_ONCE, otherwise: JOB_ITEMS_AT_ONCE.FREE! },
        run: ({ jobId, position }, attempt) => runItem(itemDeps, jobId, position, attempt.last),
      });
    },
  };
}

/** Slots for jobs' extractions: half the instance's (at least one), by the tiers' page-mode caps. */
function jobsShare(settings: JobSettings): Slots {
  return createSlots({
    perTier: slotsPerTier,
    server: Math.max(1, Math.floor(settings.extractionSlots / 2)),
    code: "too_many_extractions",
    what: "extractions of jobs",
  });
}

/** A slot of `share` and one of `all` together, or neither. */
function withinShare(share: Slots, all: Slots): Slots {
  return {
    acquire(holder) {
      const fromShare = share.acquire(holder);
      try {
        const fromAll = all.acquire(holder);
        return () => {
          fromAll();
          fromShare();
        };
      } catch (error) {
        fromShare();
        throw error;
      }
    },
  };
}

/** Whether a failure may pass when the same item runs again later: the platform's 502, 504 or 429. */
const retryHelps = (error: ApiError) => errorTable[error.code].retry && [502, 503, 504].includes(error.status);

/** Gives the job its items and queues them, once; false asks the queue to try again later. */
async function expand(deps: JobDeps, queue: Queue, jobId: string, last: boolean): Promise<boolean> {
  const job = await jobOf(deps.db, jobId);
  if (job === null || job.status === "cancelled") return true;
  const [key] = await deps.db.query<{ tier: string }>("SELECT tier FROM api_keys WHERE id = $1", [job.apiKeyId]);
  const tier = key?.tier ?? "FREE";
  const holder: SlotHolder = { id: job.apiKeyId, accountId: Number(job.accountId), tier };
  let posts: { urls: string[]; incomplete: string | null };
  try {
    posts = await postsOf(deps, { job, holder, most: jobMaxItemsOf(tier), last });
  } catch (error) {
    if (!last) return false;
    // The last attempt: the job ends failed, saying why, rather than waiting for ever.
    deps.log.error("a job's links could not be expanded", { jobId, error: String(error) });
    posts = { urls: [], incomplete: "Its links could not be expanded; the operator's log says why." };
  }
  await deps.db.transaction((tx) => queueItems(tx, queue, { job, tier, posts, now: deps.now() }));
  await finishIfSettled(deps.db, jobId, deps.now());
  await deps.events?.settled(jobId, null);
  return true;
}

/**
 * Gives the job its items, the posts its links stand for, and queues them inside `tx` (so they
 * exist exactly when the items do), once: false when it had them already. A job is expanded
 * here, and a watch's run makes one of the posts it found.
 */
export async function queueItems(
  tx: Queryable,
  queue: Queue,
  { job, tier, posts, now }: {
    job: Job;
    tier: string;
    posts: { urls: string[]; incomplete: string | null };
    now: Date;
  },
): Promise<boolean> {
  if (!(await addItems(tx, job.id, posts.urls, posts.incomplete, now))) return false;
  const group = { id: job.apiKeyId, tier };
  await queue.send(ITEMS, posts.urls.map((_, at) => ({ data: { jobId: job.id, position: at + 1 }, group })), tx);
  return true;
}

const expandsPosts = (source: Source): source is Source & Expands => "expand" in source;

/** The posts the job's links stand for, in reading order, at most `most`; why some are missing, if any are. */
async function postsOf(
  deps: JobDeps,
  { job, holder, most, last }: { job: Job; holder: SlotHolder; most: number; last: boolean },
): Promise<{ urls: string[]; incomplete: string | null }> {
  const urls: string[] = [];
  const missing: string[] = [];
  for (const pasted of job.request.urls) {
    if (urls.length >= most) {
      missing.push(`the job holds at most ${most} items`);
      break;
    }
    let found: LinkPosts;
    try {
      found = await linkPostsOf(
        deps,
        pasted,
        { limit: most - urls.length, threads: job.request.threads ?? true },
        holder,
      );
    } catch (error) {
      // A link that cannot be expanded (or not now, on the last attempt) is one item: its own problem shows when it runs.
      if (!(error instanceof ApiError) || (retryHelps(error) && !last)) throw error;
      missing.push(`${pasted.href} could not be expanded (${error.code}), so it is one item`);
      found = { link: pasted, expansion: null };
    }
    const { link, expansion } = found;
    if (expansion === null) {
      urls.push(link.href);
      continue;
    }
    urls.push(...expansion.posts.slice(0, most - urls.length).map((post) => post.href));
    if (!expansion.complete) missing.push(`${pasted.href}: ${expansion.incomplete ?? "not every post was reached"}`);
  }
  return { urls, incomplete: missing.length === 0 ? null : missing.join("; ") };
}

/** A pasted link as its reader reads it (a short link followed), and the posts it stands for (null: it is one post). */
export interface LinkPosts {
  link: URL;
  expansion: Expansion | null;
}

/**
 * What `pasted` stands for when its source can say, asked as `post` asks (the link resolved first,
 * once, so that its items need not follow it again; the source's tools; an extraction slot of the
 * job's key); a null expansion when it is one post (or no platform's: its item says so).
 */
export async function linkPostsOf(
  deps: JobDeps,
  pasted: URL,
  { limit, threads }: { limit: number; threads: boolean },
  holder: SlotHolder,
): Promise<LinkPosts> {
  const signal = AbortSignal.timeout(EXPANSION_TIMEOUT_MS);
  const url = await deps.resolveLink(pasted, signal);
  const platform = await platformOf(url, deps);
  if (platform === null) return { link: url, expansion: null };
  const link = { url, platform };
  const source = deps.sources(link);
  const expansion = expandsPosts(source)
    ? await whenSlotFrees(() => asking(deps, source, link, holder, () => source.expand(link, limit, signal, threads)))
    : null;
  if (expansion === null && standsForMany(url, platform)) return { link: url, expansion: notListed(link) };
  return { link: url, expansion };
}

/** A profile, feed or list link no source lists the posts of: no item (its item could only fail), and why. */
const notListed = (link: Link): Expansion => ({
  posts: [],
  complete: false,
  incomplete: `this service cannot list the posts of this ${
    rowOf(link.platform)?.name ?? link.platform
  } profile, feed or list; pass the links of its posts`,
});

/** Bounds one link's expansion (a channel of thousands pages through yt-dlp). */
const EXPANSION_TIMEOUT_MS = 5 * 60_000;

/** Runs one item: its post's record, or its problem; false asks the queue to run it again later. */
async function runItem(deps: JobDeps, jobId: string, position: number, last: boolean): Promise<boolean> {
  const claimed = await claimItem(deps.db, jobId, position);
  if (claimed === null) return true;
  const settle = async (outcome: ItemOutcome) => {
    await settleItem(deps.db, jobId, position, outcome, deps.now());
    await deps.events?.settled(jobId, position);
  };
  if ((await countItem(deps.db, jobId, position, deps.now())) === null) {
    await settle({
      problem: { code: "quota_exceeded", detail: "The key's daily limit was used up before this item ran." },
    });
    return true;
  }
  const holder: SlotHolder = { id: claimed.apiKeyId, accountId: claimed.accountId, tier: claimed.tier };
  try {
    await settle({ post: await whenSlotFrees(() => postRecord(deps, new URL(claimed.url), { key: holder })) });
  } catch (error) {
    if (error instanceof ApiError && retryHelps(error) && !last) return false;
    await settle({ problem: problemOf(error, deps.log, jobId, position) });
  }
  return true;
}

/** An item's failure as the API would have answered it; anything but an ApiError is logged and told as internal. */
function problemOf(error: unknown, log: Logger, jobId: string, position: number): ItemProblem {
  if (error instanceof ApiError) return { code: error.code, detail: error.message };
  log.error("a job's item failed unexpectedly", { jobId, position, error: String(error) });
  return { code: "internal_error", detail: "The item could not be run; the operator's log says why." };
}
