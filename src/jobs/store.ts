// The jobs and their items (migration 009, src/jobs/job.ts): what the API shows, what the queue's
// workers claim and settle. Every change an item goes through is one statement guarded by the
// status it expects, so an item that two instances run (the first died halfway) is settled once.
import type { ItemProblem, Job, JobItem, JobRequest, JobStatus } from "./job.ts";
import type { PostRecord } from "../platforms/records.ts";
import type { Queryable } from "../store/db.ts";
import { storableJson } from "../util/storable-json.ts";
import type { JobRequestFiles } from "./archive-files.ts";

/** The request as the store keeps it: the links as text. */
type StoredRequest = Omit<JobRequest, "urls"> & { urls: string[] };

interface JobRow {
  id: string;
  account_id: number | string;
  api_key_id: string;
  status: JobStatus;
  request: StoredRequest;
  created_at: Date;
  finished_at: Date | null;
  complete: boolean;
  incomplete: string | null;
  total: number;
  done: number;
  failed: number;
  links_read: number;
  expanded: boolean;
  watch_id: string | null;
}

const JOB_COLUMNS = `j.id, j.account_id, j.api_key_id, j.status, j.request, j.created_at, j.finished_at, j.complete,
  j.incomplete, j.watch_id, j.links_read, j.expanded_at IS NOT NULL AS expanded,
  (SELECT count(*)::integer FROM job_items i WHERE i.job_id = j.id) AS total,
  (SELECT count(*)::integer FROM job_items i WHERE i.job_id = j.id AND i.status = 'done') AS done,
  (SELECT count(*)::integer FROM job_items i WHERE i.job_id = j.id AND i.status = 'failed') AS failed`;

const toJob = (row: JobRow): Job => ({
  id: row.id,
  accountId: String(row.account_id),
  apiKeyId: row.api_key_id,
  status: row.status,
  request: { ...row.request, urls: row.request.urls.map((url) => new URL(url)), webhook: row.request.webhook ?? null },
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  counts: { total: row.total, done: row.done, failed: row.failed, linksRead: row.links_read },
  expanded: row.expanded,
  complete: row.complete,
  incomplete: row.incomplete,
  watchId: row.watch_id,
});

export interface NewJob {
  id: string;
  accountId: number;
  apiKeyId: string;
  request: JobRequest;
  now: Date;
  /** The watch whose run makes this job, if one does. */
  watchId?: string;
}

export async function createJob(db: Queryable, job: NewJob): Promise<Job> {
  const request: StoredRequest = { ...job.request, urls: job.request.urls.map((url) => url.href) };
  await db.query(
    `INSERT INTO jobs (id, account_id, api_key_id, request, created_at, watch_id)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6)`,
    [job.id, job.accountId, job.apiKeyId, request, job.now, job.watchId ?? null],
  );
  return (await jobOf(db, job.id))!;
}

/** The job `id`, when it is there and (with `accountId`) that account's: another account's job is none. */
export async function jobOf(db: Queryable, id: string, accountId?: number): Promise<Job | null> {
  const [row] = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs j WHERE j.id = $1 AND ($2::bigint IS NULL OR j.account_id = $2)`,
    [id, accountId ?? null],
  );
  return row ? toJob(row) : null;
}

/** Where a page of an account's jobs starts: after the job made at `createdAt` with `id`. */
export interface JobsCursor {
  createdAt: Date;
  id: string;
}

/** The account's jobs, newest first, `limit` of them after `cursor`. */
export async function jobsOf(
  db: Queryable,
  accountId: number,
  page: { after: JobsCursor | null; limit: number },
): Promise<Job[]> {
  const rows = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs j
      WHERE j.account_id = $1 AND ($2::timestamptz IS NULL OR (j.created_at, j.id) < ($2, $3))
      ORDER BY j.created_at DESC, j.id DESC LIMIT $4`,
    [accountId, page.after?.createdAt ?? null, page.after?.id ?? "", page.limit],
  );
  return rows.map(toJob);
}

interface ItemRow {
  position: number;
  url: string;
  status: JobItem["status"];
  post: PostRecord | null;
  problem: ItemProblem | null;
}

/**
 * The job's items in reading order, `limit` of them after position `after` (0 for the first).
 * The archive and the API page through a job with this; the caller has checked the job's owner.
 */
export async function itemsOf(
  db: Queryable,
  jobId: string,
  page: { after: number; limit: number },
): Promise<JobItem[]> {
  return db.query<ItemRow>(
    // A queued item may hold the record its link's read gave: it is the item's once the item is done.
    `SELECT position, url, status, CASE WHEN status = 'done' THEN post END AS post, problem FROM job_items
      WHERE job_id = $1 AND position > $2 ORDER BY position LIMIT $3`,
    [jobId, page.after, page.limit],
  );
}

/**
 * Gives the job its items, the posts its links stand for in reading order, once: false when it
 * had them already (its expansion ran before, on this instance or another). `incomplete` says why
 * some posts are missing, null when none is.
 */
export async function addItems(
  db: Queryable,
  jobId: string,
  posts: { urls: readonly string[]; titles?: readonly (string | null)[] },
  incomplete: string | null,
  now: Date,
): Promise<boolean> {
  const [claimed] = await db.query(
    `UPDATE jobs SET expanded_at = $2, complete = $3, incomplete = $4, links_read = jsonb_array_length(request -> 'urls')
      WHERE id = $1 AND expanded_at IS NULL AND status <> 'cancelled' RETURNING id`,
    [jobId, now, incomplete === null, incomplete],
  );
  if (!claimed) return false;
  await db.query(
    `INSERT INTO job_items (job_id, position, url, listed_title)
     SELECT $1, position::integer, url, title
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS posts (url, title, position)`,
    // A title is cleaned of what PostgreSQL's text refuses, as a record is.
    [jobId, posts.urls, storableJson(posts.urls.map((_, at) => posts.titles?.[at] ?? null))],
  );
  return true;
}

/**
 * Starts the job's expansion, once: marks it running (at work, though it may have no item yet) and
 * says which of its links are to be put on the queue to be read, those from `from` on (a job whose
 * expansion began before links were read on the queue goes on from where it was); null when they
 * were put on it already, or the job is cancelled or expanded.
 */
export async function startExpansion(
  tx: Queryable,
  jobId: string,
  now: Date,
): Promise<{ from: number; count: number } | null> {
  const [started] = await tx.query<{ from: number; count: number }>(
    `UPDATE jobs SET status = 'running', links_queued_at = $2
      WHERE id = $1 AND links_queued_at IS NULL AND expanded_at IS NULL AND status IN ('queued', 'running')
      RETURNING links_read AS from, jsonb_array_length(request -> 'urls') AS count`,
    [jobId, now],
  );
  return started ?? null;
}

/** Keeps what link `at` of the job stands for until the links before it have their items (once). */
export async function keepLinkRead(db: Queryable, jobId: string, at: number, read: object): Promise<void> {
  await db.query("INSERT INTO job_links (job_id, at, read) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
    jobId,
    at,
    storableJson(read),
  ]);
}

/** Which of the job's links from `from` to before `to` were read and are kept, waiting for those before them. */
export async function keptLinks(db: Queryable, jobId: string, from: number, to: number): Promise<Set<number>> {
  const rows = await db.query<{ at: number }>(
    "SELECT at FROM job_links WHERE job_id = $1 AND at >= $2 AND at < $3",
    [jobId, from, to],
  );
  return new Set(rows.map((row) => row.at));
}

/**
 * The job's expansion as it is, held inside `tx` until it ends (one taker at a time, on any
 * instance): how many links have their items, how many items there are, and the links read since
 * that wait their turn, in order from the first not taken (null: the job is no longer expanding).
 */
export async function heldExpansion<Read>(
  tx: Queryable,
  jobId: string,
): Promise<{ links: number; linksRead: number; items: number; reads: { at: number; read: Read }[] } | null> {
  const [job] = await tx.query<{ links_read: number; links: number }>(
    `SELECT links_read, jsonb_array_length(request -> 'urls') AS links FROM jobs
      WHERE id = $1 AND expanded_at IS NULL AND status IN ('queued', 'running') FOR UPDATE`,
    [jobId],
  );
  if (job === undefined) return null;
  const [items] = await tx.query<{ n: number }>("SELECT count(*)::integer AS n FROM job_items WHERE job_id = $1", [
    jobId,
  ]);
  const reads = await tx.query<{ at: number; read: Read }>(
    "SELECT at, read FROM job_links WHERE job_id = $1 AND at >= $2 ORDER BY at",
    [jobId, job.links_read],
  );
  return { links: job.links, linksRead: job.links_read, items: items?.n ?? 0, reads };
}

/** Lets go of the reads of the job's links before `before`: they have their items. */
export async function dropTakenReads(tx: Queryable, jobId: string, before: number): Promise<void> {
  await tx.query("DELETE FROM job_links WHERE job_id = $1 AND at < $2", [jobId, before]);
}

/** Sets a job's `complete` false and adds `$3` to why, when `$3` is a reason (null: nothing missing). */
const NOTING_MISSING = `complete = complete AND $3::text IS NULL,
  incomplete = CASE WHEN $3::text IS NULL THEN incomplete ELSE concat_ws('; ', incomplete, $3::text) END`;

/**
 * A post a read link stands for: its link, its record when the read gave it (its item need not read
 * it again), and the title its listing gives it (Expansion.titles) when it gives one.
 */
export interface ReadPost {
  url: string;
  post: PostRecord | null;
  title?: string | null;
}

/**
 * Gives the job the items of its `links` links from 0-based place `at` in the request, after those
 * of the links before them, once: the positions they got, or null when those links were taken
 * already (the expansion ran again) or the job was cancelled. `missing` says why some of their
 * posts are not there, null when none is missing.
 */
export async function appendItems(
  tx: Queryable,
  jobId: string,
  { at, links, posts, missing }: { at: number; links: number; posts: readonly ReadPost[]; missing: string | null },
): Promise<number[] | null> {
  const [taken] = await tx.query<{ before: number }>(
    `WITH taken AS (
       UPDATE jobs SET links_read = $2 + $4, ${NOTING_MISSING}
        WHERE id = $1 AND links_read = $2 AND expanded_at IS NULL AND status IN ('queued', 'running') RETURNING id)
     SELECT (SELECT count(*)::integer FROM job_items WHERE job_id = $1) AS before FROM taken`,
    [jobId, at, missing, links],
  );
  if (!taken) return null;
  // One json parameter (both drivers serialize an object themselves; an array would be sent as an SQL array).
  // A record a read gave is cleaned of what jsonb refuses, as a settled item's is.
  const rows = {
    posts: posts.map(({ url, post, title }) => ({
      url,
      ...(post === null ? {} : { post: storableJson(post) }),
      ...(title ? { title: storableJson(title) } : {}),
    })),
  };
  await tx.query(
    `INSERT INTO job_items (job_id, position, url, post, listed_title)
     SELECT $1, $2 + n::integer, p ->> 'url', p -> 'post', p ->> 'title'
       FROM jsonb_array_elements($3::jsonb -> 'posts') WITH ORDINALITY AS posts (p, n)`,
    [jobId, taken.before, rows],
  );
  return posts.map((_, n) => taken.before + n + 1);
}

/** Ends the job's expansion, once (false when it had ended already); `missing` as in appendItems. */
export async function finishExpansion(
  db: Queryable,
  jobId: string,
  missing: string | null,
  now: Date,
): Promise<boolean> {
  const [ended] = await db.query(
    `UPDATE jobs SET expanded_at = $2, ${NOTING_MISSING} WHERE id = $1 AND expanded_at IS NULL RETURNING id`,
    [jobId, now, missing],
  );
  // Links read ahead of a job that filled up are not taken.
  await db.query("DELETE FROM job_links WHERE job_id = $1", [jobId]);
  return ended !== undefined;
}

/** What a worker needs to run an item it claimed. */
export interface ClaimedItem {
  url: string;
  accountId: number;
  apiKeyId: string;
  /** The tier of the job's key now: the item's fair share is the key's. */
  tier: string;
  /** The record its link's one read gave, taken as the item's own: null when the item reads its post. */
  read: PostRecord | null;
  /** What the job asks of each item's files (whether it has them, their format, output and clip). */
  request: JobRequestFiles;
  /** The title its link's listing gives the post (a feed's for its entry), its record's text; null for none. */
  listedTitle: string | null;
}

/**
 * Marks the item running, and its job with it, unless it is settled (done, failed, cancelled):
 * an item left running by an instance that died is claimed again. One statement: every item of
 * a job of thousands runs it.
 */
export async function claimItem(db: Queryable, jobId: string, position: number): Promise<ClaimedItem | null> {
  const [row] = await db.query<
    {
      url: string;
      account_id: number | string;
      api_key_id: string;
      tier: string;
      post: PostRecord | null;
      request: JobRequestFiles;
      listed_title: string | null;
    }
  >(
    `WITH claimed AS (
       UPDATE job_items SET status = 'running'
        WHERE job_id = $1 AND position = $2 AND status IN ('queued', 'running') RETURNING job_id, url, post, listed_title),
     started AS (
       UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'queued' AND EXISTS (SELECT 1 FROM claimed))
     SELECT c.url, c.post, c.listed_title, j.account_id, j.api_key_id, k.tier, j.request - 'urls' AS request
       FROM claimed c JOIN jobs j ON j.id = c.job_id JOIN api_keys k ON k.id = j.api_key_id`,
    [jobId, position],
  );
  if (!row) return null;
  return {
    url: row.url,
    accountId: Number(row.account_id),
    apiKeyId: row.api_key_id,
    tier: row.tier,
    read: row.post,
    request: row.request,
    listedTitle: row.listed_title,
  };
}

/** How an item ended: its record, or its problem. */
export type ItemOutcome = { post: PostRecord } | { problem: ItemProblem };

/** Settles a running item (once: false when it was settled already), and its job when it was the last. */
export async function settleItem(
  db: Queryable,
  jobId: string,
  position: number,
  outcome: ItemOutcome,
  now: Date,
): Promise<boolean> {
  const [settled] = await db.query(
    `UPDATE job_items SET status = $3, post = $4::jsonb, problem = $5::jsonb, finished_at = $6
      WHERE job_id = $1 AND position = $2 AND status = 'running' RETURNING position`,
    [
      jobId,
      position,
      "post" in outcome ? "done" : "failed",
      // Objects: both drivers serialize a parameter of a json type themselves. A platform's text
      // may hold what jsonb refuses (U+0000, a lone surrogate): it is cleaned, not the item failed.
      "post" in outcome ? storableJson(outcome.post) : null,
      "problem" in outcome ? storableJson(outcome.problem) : null,
      now,
    ],
  );
  await finishIfSettled(db, jobId, now);
  return settled !== undefined;
}

/**
 * Finishes the job once every item is settled: completed when any is done, failed when none is
 * (a job with no items, every link failing its expansion, too).
 */
export async function finishIfSettled(db: Queryable, jobId: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE jobs j SET finished_at = $2,
            status = CASE WHEN EXISTS (SELECT 1 FROM job_items i WHERE i.job_id = j.id AND i.status = 'done')
                          THEN 'completed' ELSE 'failed' END
      WHERE j.id = $1 AND j.status IN ('queued', 'running') AND j.expanded_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM job_items i WHERE i.job_id = j.id AND i.status IN ('queued', 'running'))`,
    [jobId, now],
  );
}

/**
 * Cancels what of the account's job has not run: its queued items, and the job unless it has
 * finished. The job as it is then; null when the account has no such job.
 */
export async function cancelJob(db: Queryable, id: string, accountId: number, now: Date): Promise<Job | null> {
  const job = await jobOf(db, id, accountId);
  if (job === null) return null;
  // The job first: an expansion appends items only to a job still queued or running (appendItems), and one
  // appending now holds the job's row until it commits, so its items are queued before theirs are cancelled.
  await db.query(
    `UPDATE jobs SET status = 'cancelled', finished_at = $2 WHERE id = $1 AND status IN ('queued', 'running')`,
    [id, now],
  );
  await db.query(
    `UPDATE job_items SET status = 'cancelled', finished_at = $2 WHERE job_id = $1 AND status = 'queued'`,
    [id, now],
  );
  return jobOf(db, id);
}

/**
 * Counts the item as one call of the job's key against its day, once however often it runs
 * (count_job_item in migration 009): the calls left after it, or null when the day had none left.
 */
export async function countItem(db: Queryable, jobId: string, position: number, now: Date): Promise<number | null> {
  const [row] = await db.query<{ left: number }>("SELECT count_job_item($1, $2, $3) AS left", [jobId, position, now]);
  return row!.left < 0 ? null : row!.left;
}
