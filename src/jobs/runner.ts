// What runs a job, on whichever instance the queue hands it to: first its expansion (its links
// into the posts they stand for, as items in reading order), then each item, one counted call of
// the job's key that looks its post up as `post` does. The queue carries the ids; the rows say
// what is left to do, so an item run twice (its instance died halfway) is settled and counted once.
import { postRecord } from "../operations/post.ts";
import { asking, createAsk, platformOf } from "../operations/ask.ts";
import { type DownloadDeps, planOf } from "../operations/download.ts";
import { requireAnswers } from "../media/run-plan.ts";
import type { PostRecord } from "../platforms/records.ts";
import { fileIndexesOf } from "./archive.ts";
import { wantedOf } from "./archive-files.ts";
import { errorTable } from "../http/errors.ts";
import { ApiError } from "../http/problem.ts";
import { createSlots, type SlotHolder, type Slots, slotsPerTier } from "../limits/slots.ts";
import type { Logger } from "../log.ts";
import type { Expands, Expansion, Link, OnePost, Source } from "../platforms/source.ts";
import { rowOf, standsForMany } from "../platforms/table.ts";
import type { SourceOf } from "../platforms/sources.ts";
import type { Db, Queryable } from "../store/db.ts";
import {
  addItems,
  appendItems,
  type ClaimedItem,
  claimItem,
  countItem,
  finishExpansion,
  finishIfSettled,
  type ItemOutcome,
  jobOf,
  type ReadPost,
  settleItem,
  startExpansion,
} from "./store.ts";
import { NO_SLOT, type NoSlot, readInOrder } from "./link-reads.ts";
import type { ItemProblem, Job } from "./job.ts";
import type { Queue } from "../queue/queue.ts";
import { NO_SLOT_WAIT_S, whenSlotFrees } from "./slot-turn.ts";
import { jobMaxItemsOf } from "./request.ts";

const EXPANSIONS = "job-expansions";
const ITEMS = "job-items";

/**
 * Items of one key that run at once on an instance, by tier: its fair share of the instance's
 * job work. An item that extracts also holds one of the key's extraction slots (slotsPerTier).
 */
export const JOB_ITEMS_AT_ONCE: Readonly<Record<string, number>> = { FREE: 2, PRO: 8, GOLD: 32 };

/** Expansions of one key that take turns at once on an instance, by tier: each reads up to its key's share of links. */
export const EXPANSIONS_AT_ONCE: Readonly<Record<string, number>> = { FREE: 1, PRO: 2, GOLD: 4 };

export interface JobSettings {
  /** Items this instance runs at once, of each tier (its lane of the queue). */
  concurrency: number;
  /** The jobs' share of the instance's extraction slots (JOB_EXTRACTIONS), of every key together. */
  extractionSlots: number;
}

/** The settings of an instance's jobs, from its configuration. */
export const jobSettingsOf = (config: { JOB_CONCURRENCY: number; JOB_EXTRACTIONS: number }): JobSettings => ({
  concurrency: config.JOB_CONCURRENCY,
  extractionSlots: config.JOB_EXTRACTIONS,
});

/** Who hears of each settled item (`position`) and expansion (null): the webhooks' side, jobs/events.ts. */
export interface JobEvents {
  settled(jobId: string, position: number | null): Promise<void>;
}

export interface JobDeps extends DownloadDeps {
  /** The sources jobs read through: their tools run below interactive calls' (niced). */
  jobSources: SourceOf;
  db: Db;
  log: Logger;
  now: () => Date;
  settings: JobSettings;
  /** Told of each settled item and expansion: the webhooks' side (jobs/events.ts). */
  events?: JobEvents;
  /** ACCOUNT_COOKIES=on: the sources of an account that brought its own cookies (account-cookies/); null for none. */
  accountSources?: (accountId: number) => Promise<SourceOf | null>;
}

/** `deps` for the work of `holder`'s account: through its own cookies' sources where it brought some. */
async function asAccount(deps: JobDeps, holder: SlotHolder): Promise<JobDeps> {
  const own = (await deps.accountSources?.(holder.accountId)) ?? null;
  return own === null ? deps : { ...deps, sources: own };
}

export interface Jobs {
  /** Queues the expansion of a job just recorded, to start `startAfterS` seconds from now (its `runAt`). */
  queueExpansion(jobId: string, startAfterS?: number): Promise<void>;
  /** Starts this instance's workers on the queue. */
  work(): Promise<void>;
}

/**
 * What the background's work reads with, made once for an instance's jobs and watches together: the
 * job sources (their tools niced, JOB_NICENESS), and extractions that hold a slot of the key (as
 * any call does) and one of the jobs' share.
 */
export function inBackground(deps: JobDeps): JobDeps {
  const extractions = withinShare(jobsShare(deps.settings), deps.extractions);
  return { ...deps, sources: deps.jobSources, extractions, ask: createAsk({ tools: deps.tools, extractions }) };
}

/** The jobs of an instance, on `deps` made inBackground. */
export function createJobs(deps: JobDeps, queue: Queue): Jobs {
  return {
    queueExpansion: async (jobId, startAfterS) =>
      queue.send(EXPANSIONS, [{ data: { jobId }, group: await groupOf(deps.db, jobId), startAfterS }]),
    async work() {
      // The items' lanes first: an expansion queues its items inside its store transaction, and a lane
      // not made yet is made outside it, which on PGlite waits for that transaction to end, for ever.
      // An expansion left waiting from before a restart runs as soon as its worker starts.
      await queue.work<QueuedItem>({
        queue: ITEMS,
        concurrency: deps.settings.concurrency,
        groups: { perTier: JOB_ITEMS_AT_ONCE, otherwise: JOB_ITEMS_AT_ONCE.FREE! },
        run: (item, attempt) => runItem(deps, queue, item, attempt.last),
      });
      await queue.work<{ jobId: string }>({
        queue: EXPANSIONS,
        // A turn holds its worker only while it reads: enough workers for every tier's turns to pass the others'.
        concurrency: deps.settings.extractionSlots,
        groups: { perTier: EXPANSIONS_AT_ONCE, otherwise: EXPANSIONS_AT_ONCE.FREE! },
        run: ({ jobId }, attempt) => expandTurn(deps, queue, jobId, attempt.last),
      });
    },
  };
}

/** Slots for jobs' extractions: the jobs' share of the instance's, by the tiers' page-mode caps. */
function jobsShare(settings: JobSettings): Slots {
  return createSlots({
    perTier: slotsPerTier,
    server: settings.extractionSlots,
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

/** One link as read: the posts it stands for (with the record where the read gave it), and why some are missing. */
interface LinkRead {
  posts: ReadPost[];
  missing: string | null;
}

/**
 * One turn of a job's expansion: its links read from where the last turn left off, their items
 * queued as each is read. When the key's slots are all held (its items or its own calls hold
 * them), the turn gives its worker back and comes again a little later; false asks the queue to
 * run the turn again (a link's failure a retry can help).
 */
async function expandTurn(deps: JobDeps, queue: Queue, jobId: string, last: boolean): Promise<boolean> {
  const job = await jobOf(deps.db, jobId);
  if (job === null || job.status === "cancelled" || job.expanded) return true;
  const group = await groupOf(deps.db, jobId);
  const holder: SlotHolder = { id: job.apiKeyId, accountId: Number(job.accountId), tier: group.tier };
  await startExpansion(deps.db, jobId);
  const most = jobMaxItemsOf(group.tier);
  let items = job.counts.total;
  let turn: { next: number; noSlot: boolean };
  try {
    turn = await readInOrder<LinkRead>({
      from: job.counts.linksRead,
      count: job.request.urls.length,
      width: JOB_ITEMS_AT_ONCE[group.tier] ?? JOB_ITEMS_AT_ONCE.FREE!,
      read: (at) => readLink(deps, { job, holder, at, limit: Math.max(1, most - items), last }),
      async take(at, reads) {
        const links = upTo(most - items, most, reads);
        await deps.db.transaction(async (tx) => {
          const positions = await appendItems(tx, jobId, { at, ...links });
          if (positions !== null) await queueAt(tx, queue, { jobId, group, positions });
        });
        items += links.posts.length;
        return links.links;
      },
    });
  } catch (error) {
    if (!last) return false;
    // The last attempt: the job ends with what it has, saying why, rather than waiting for ever.
    deps.log.error("a job's links could not be expanded", { jobId, error: String(error) });
    turn = { next: job.request.urls.length, noSlot: false };
    await finishExpansion(deps.db, jobId, "Its links could not be expanded; the operator's log says why.", deps.now());
  }
  if (turn.noSlot) {
    await queue.send(EXPANSIONS, [{ data: { jobId }, group, startAfterS: NO_SLOT_WAIT_S }]);
    return true;
  }
  const unread = job.request.urls.length - turn.next;
  await finishExpansion(
    deps.db,
    jobId,
    unread > 0 ? `${unread} of its links were not read: the job holds at most ${most} items` : null,
    deps.now(),
  );
  await finishIfSettled(deps.db, jobId, deps.now());
  await deps.events?.settled(jobId, null);
  return true;
}

/**
 * Links read one after another, taken as one write: how many are taken (none once the job is full), their posts up to
 * `room` more, and why some are missing.
 */
function upTo(room: number, most: number, reads: readonly LinkRead[]): {
  links: number;
  posts: ReadPost[];
  missing: string | null;
} {
  const posts: ReadPost[] = [];
  const missing: string[] = [];
  let links = 0;
  for (const read of reads) {
    if (posts.length >= room) break;
    links += 1;
    const kept = read.posts.slice(0, room - posts.length);
    posts.push(...kept);
    if (read.missing !== null) missing.push(read.missing);
    if (kept.length < read.posts.length) missing.push(`the job holds at most ${most} items`);
  }
  return { links, posts, missing: missing.length === 0 ? null : missing.join("; ") };
}

/** The key and tier a job's work is shared by. */
async function groupOf(db: Queryable, jobId: string): Promise<{ id: string; tier: string }> {
  const [row] = await db.query<{ id: string; tier: string }>(
    "SELECT k.id, k.tier FROM jobs j JOIN api_keys k ON k.id = j.api_key_id WHERE j.id = $1",
    [jobId],
  );
  return row ?? { id: jobId, tier: "FREE" };
}

/** Link `at` of the job as read now, or NO_SLOT when the key's slots are all held; throws where a retry may help. */
async function readLink(
  deps: JobDeps,
  { job, holder, at, limit, last }: { job: Job; holder: SlotHolder; at: number; limit: number; last: boolean },
): Promise<LinkRead | NoSlot> {
  const pasted = job.request.urls[at]!;
  let found: LinkPosts;
  try {
    found = await linkPostsOf(deps, pasted, { limit, threads: job.request.threads ?? true }, holder);
  } catch (error) {
    if (error instanceof ApiError && error.code === "too_many_extractions") return NO_SLOT;
    // A link that cannot be expanded (or not now, on the last attempt) is one item: its own problem shows when it runs.
    if (!(error instanceof ApiError) || (retryHelps(error) && !last)) throw error;
    return {
      posts: [{ url: pasted.href, post: null }],
      missing: `${pasted.href} could not be expanded (${error.code}), so it is one item`,
    };
  }
  const { link, expansion } = found;
  if (expansion === null) return { posts: [{ url: link.href, post: null }], missing: null };
  if ("post" in expansion) return { posts: [{ url: link.href, post: expansion.post }], missing: null };
  return {
    posts: expansion.posts.map((post, at) => ({ url: post.href, post: null, title: expansion.titles?.[at] ?? null })),
    missing: expansion.complete ? null : `${pasted.href}: ${expansion.incomplete ?? "not every post was reached"}`,
  };
}

/**
 * The priority of a key's item with `ahead` of its items queued before it: minus the turn it comes
 * in, counted in the key's share. The queue takes the highest first, so a key's first items come
 * before the hundredth of another key of its tier that queued earlier, and two keys' backlogs take
 * turns (fair queuing): a key at its share is passed over, and the one behind it no longer waits
 * for a backlog of hundreds queued before it to drain.
 */
export const turnOf = (ahead: number, share: number): number => -Math.floor(Math.max(0, ahead) / share);

/** How many of the key's items wait in its jobs, those just written in `tx` among them. */
async function queuedOfKey(tx: Queryable, apiKeyId: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    // By the key's account first: its jobs are found by the account's index, its waiting items by the jobs' open ones.
    `SELECT count(*)::int AS n FROM job_items i JOIN jobs j ON j.id = i.job_id
      WHERE j.account_id = (SELECT account_id FROM api_keys WHERE id = $1) AND j.api_key_id = $1
        AND j.status IN ('queued', 'running') AND i.status = 'queued'`,
    [apiKeyId],
  );
  return row?.n ?? 0;
}

/** Queues the items at `positions` of the job, inside `tx`, in its key's group, each at its key's turn. */
async function queueAt(
  tx: Queryable,
  queue: Queue,
  { jobId, group, positions }: { jobId: string; group: { id: string; tier: string }; positions: readonly number[] },
): Promise<void> {
  const ahead = await queuedOfKey(tx, group.id) - positions.length;
  const share = JOB_ITEMS_AT_ONCE[group.tier] ?? JOB_ITEMS_AT_ONCE.FREE!;
  await queue.send(
    ITEMS,
    positions.map((position, at) => ({ data: { jobId, position }, group, priority: turnOf(ahead + at, share) })),
    tx,
  );
}

/**
 * Gives a job all its items at once, the posts its links stand for, and queues them inside `tx`
 * (so they exist exactly when the items do), once: false when it had them already. A watch's run
 * makes its job of the posts it found with this.
 */
export async function queueItems(
  tx: Queryable,
  queue: Queue,
  { job, tier, posts, now }: {
    job: Job;
    tier: string;
    posts: { urls: string[]; titles?: (string | null)[]; incomplete: string | null };
    now: Date;
  },
): Promise<boolean> {
  if (!(await addItems(tx, job.id, posts, posts.incomplete, now))) return false;
  const group = { id: job.apiKeyId, tier };
  await queueAt(tx, queue, { jobId: job.id, group, positions: posts.urls.map((_, at) => at + 1) });
  return true;
}

const expandsPosts = (source: Source): source is Source & Expands => "expand" in source;

/** A pasted link as its reader reads it (a short link followed), and the posts it stands for (null: it is one post). */
export interface LinkPosts {
  link: URL;
  /** The posts it stands for; a OnePost when reading it found one post; null when it is one post not read. */
  expansion: Expansion | OnePost | null;
}

/**
 * What `pasted` stands for when its source can say, asked as `post` asks (the link resolved first,
 * once, so that its items need not follow it again; the source's tools; an extraction slot of the
 * job's key, 429 too_many_extractions when none is free); a null expansion when it is one post (or
 * no platform's: its item says so).
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
  const source = (await asAccount(deps, holder)).sources(link);
  const expansion = expandsPosts(source)
    ? await asking(deps, source, link, holder, () => source.expand(link, limit, signal, threads))
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
async function runItem(deps: JobDeps, queue: Queue, item: QueuedItem, last: boolean): Promise<boolean> {
  const { jobId, position } = item;
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
    // The record its link's one read gave is the item's: the page is not read twice.
    const reader = await asAccount(deps, holder);
    const read = claimed.read ?? await whenSlotFrees(() => postRecord(reader, new URL(claimed.url), { key: holder }));
    // A feed's title for its entry is the post's text, over its page's (often only its file's name).
    const post = claimed.listedTitle === null ? read : { ...read, text: claimed.listedTitle };
    // An item with files is done only when each answers: the archive would meet a dead file.
    for (const index of fileIndexesOf(post, claimed.request)) {
      await requireFile(reader, claimed, { post, index, holder });
    }
    await settle({ post });
  } catch (error) {
    if (error instanceof ApiError && retryHelps(error)) {
      const group = { id: claimed.apiKeyId, tier: claimed.tier };
      if (await restedUntilDue(queue, item, group, error)) return true;
      if (!last) return false;
    }
    await settle({ problem: problemOf(error, deps.log, jobId, position) });
  }
  return true;
}

/** An item as the queue carries it: `rests`, how often it waited for its platform to be asked again. */
interface QueuedItem {
  jobId: string;
  position: number;
  rests?: number;
}

/** How often an item waits out its platform's rest before its problem stays: a platform down for minutes fails it. */
const MOST_RESTS = 5;

/**
 * Puts the item back on the queue for when its platform may be asked again, where the reader said
 * when (a platform that failed rests, and says so with Retry-After): the queue's own retries come
 * seconds apart, and would spend themselves inside one rest, failing every item of a job that met
 * it (81 of 100 X items, when one answer came late on a busy machine). False where it cannot.
 */
async function restedUntilDue(
  queue: Queue,
  item: QueuedItem,
  group: { id: string; tier: string },
  error: ApiError,
): Promise<boolean> {
  const restS = Number(error.headers["retry-after"]);
  const rests = item.rests ?? 0;
  if (!(restS > 0) || rests >= MOST_RESTS) return false;
  await queue.send(ITEMS, [{ data: { ...item, rests: rests + 1 }, group, startAfterS: restS }]);
  return true;
}

/** Bounds the check of one file of an item: its plan, and its first byte. */
const FILE_CHECK_TIMEOUT_MS = 60_000;

/**
 * Throws the problem a download of file `index` of the item's post would meet before its first
 * byte: its plan made as the archive makes it, and the media that plan reads asked for one byte.
 */
async function requireFile(
  deps: JobDeps,
  item: ClaimedItem,
  { post, index, holder }: { post: PostRecord; index: number | null; holder: SlotHolder },
): Promise<void> {
  const signal = AbortSignal.timeout(FILE_CHECK_TIMEOUT_MS);
  const wanted = wantedOf(post, index, item.request);
  const plan = await whenSlotFrees(() => planOf(new URL(item.url), wanted, { signal, holder }, deps));
  await requireAnswers(plan, deps.runner, signal);
}

/** An item's failure as the API would have answered it; anything but an ApiError is logged and told as internal. */
function problemOf(error: unknown, log: Logger, jobId: string, position: number): ItemProblem {
  if (error instanceof ApiError) return { code: error.code, detail: error.message };
  log.error("a job's item failed unexpectedly", { jobId, position, error: String(error) });
  return { code: "internal_error", detail: "The item could not be run; the operator's log says why." };
}
