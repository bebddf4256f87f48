// The watches and the posts each has seen (migration 011, src/watches/watch.ts). Every query that
// names a watch for its owner names the account too, so another account's id finds nothing. A
// run claims its period with one guarded statement, so of two instances holding a run of one
// period, one runs it; the posts it saw go in with ON CONFLICT DO NOTHING, so none is new twice.
import type { Queryable } from "../store/db.ts";
import type { Repeat, Watch, WatchJobRequest, WatchRequest } from "./watch.ts";

interface WatchRow {
  id: string;
  account_id: number | string;
  api_key_id: string;
  url: string;
  every_s: number | null;
  cron: string | null;
  request: WatchJobRequest;
  created_at: Date;
  next_run_at: Date;
  last_run_at: Date | null;
  runs: number;
  baselined_at: Date | null;
  last_problem: string | null;
  paused_at: Date | null;
  paused_reason: string | null;
}

const COLUMNS = `id, account_id, api_key_id, url, every_s, cron, request, created_at, next_run_at, last_run_at, runs,
  baselined_at, last_problem, paused_at, paused_reason`;

const toWatch = (row: WatchRow): Watch => ({
  id: row.id,
  accountId: String(row.account_id),
  apiKeyId: row.api_key_id,
  url: new URL(row.url),
  repeat: (row.every_s !== null ? { everyS: row.every_s } : { cron: row.cron! }) satisfies Repeat,
  job: row.request,
  createdAt: row.created_at,
  nextRunAt: row.next_run_at,
  lastRunAt: row.last_run_at,
  runs: row.runs,
  baselinedAt: row.baselined_at,
  lastProblem: row.last_problem,
  pausedAt: row.paused_at,
  pausedReason: row.paused_reason,
});

/** The new watch, due at once; null when the account holds `max` already (checked in the same statement). */
export async function createWatch(
  db: Queryable,
  watch: {
    id: string;
    accountId: number;
    apiKeyId: string;
    request: WatchRequest;
    now: Date;
    /** The most the account holds, and the most its key (of its tier) holds. */
    max: { account: number; key: number };
  },
): Promise<Watch | null> {
  const { url, repeat, job } = watch.request;
  const rows = await db.query<WatchRow>(
    `INSERT INTO watches (id, account_id, api_key_id, url, every_s, cron, request, created_at, next_run_at)
     SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $8, $8
     WHERE (SELECT count(*) FROM watches WHERE account_id = $2) < $9
       AND (SELECT count(*) FROM watches WHERE api_key_id = $3) < $10
     RETURNING ${COLUMNS}`,
    [
      watch.id,
      watch.accountId,
      watch.apiKeyId,
      url.href,
      "everyS" in repeat ? repeat.everyS : null,
      "cron" in repeat ? repeat.cron : null,
      job,
      watch.now,
      watch.max.account,
      watch.max.key,
    ],
  );
  return rows[0] ? toWatch(rows[0]) : null;
}

/** The watch `id`, when it is there and (with `accountId`) that account's. */
export async function watchOf(db: Queryable, id: string, accountId?: number): Promise<Watch | null> {
  const [row] = await db.query<WatchRow>(
    `SELECT ${COLUMNS} FROM watches WHERE id = $1 AND ($2::bigint IS NULL OR account_id = $2)`,
    [id, accountId ?? null],
  );
  return row ? toWatch(row) : null;
}

/** The account's watches, newest first (an account holds few: MAX_WATCHES_PER_ACCOUNT). */
export async function watchesOf(db: Queryable, accountId: number): Promise<Watch[]> {
  const rows = await db.query<WatchRow>(
    `SELECT ${COLUMNS} FROM watches WHERE account_id = $1 ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
  return rows.map(toWatch);
}

/** Whether the account had that watch; the jobs its runs made stay, no longer tied to it. */
export async function deleteWatch(db: Queryable, id: string, accountId: number): Promise<boolean> {
  const rows = await db.query("DELETE FROM watches WHERE id = $1 AND account_id = $2 RETURNING id", [id, accountId]);
  return rows.length > 0;
}

/** Pauses the account's watch (`accountId` null: a run pausing it for its key) unless it is paused; the watch as it is then. */
export async function pauseWatch(
  db: Queryable,
  pause: { id: string; accountId: number | null; reason: string; now: Date },
): Promise<Watch | null> {
  await db.query(
    `UPDATE watches SET paused_at = $3, paused_reason = $4
      WHERE id = $1 AND ($2::bigint IS NULL OR account_id = $2) AND paused_at IS NULL`,
    [pause.id, pause.accountId, pause.now, pause.reason],
  );
  return watchOf(db, pause.id, pause.accountId ?? undefined);
}

/**
 * Resumes the account's paused watch, due at once or when it was due if that is later: the
 * watch and whether this call resumed it (a run is to be queued), or null for no such watch.
 */
export async function resumeWatch(
  db: Queryable,
  resume: { id: string; accountId: number; now: Date },
): Promise<{ watch: Watch; resumed: boolean } | null> {
  const [row] = await db.query<WatchRow>(
    `UPDATE watches SET paused_at = NULL, paused_reason = NULL, next_run_at = greatest(next_run_at, $3)
      WHERE id = $1 AND account_id = $2 AND paused_at IS NOT NULL RETURNING ${COLUMNS}`,
    [resume.id, resume.accountId, resume.now],
  );
  if (row) return { watch: toWatch(row), resumed: true };
  const watch = await watchOf(db, resume.id, resume.accountId);
  return watch && { watch, resumed: false };
}

/** Why the watch's key may not run it now ("passive", "expired"), or null when it may. */
export async function keyHoldOf(db: Queryable, watchId: string, now: Date): Promise<"passive" | "expired" | null> {
  const [row] = await db.query<{ passive: boolean; expired: boolean }>(
    `SELECT k.passive, coalesce(k.expires_at <= $2, false) AS expired
       FROM watches w JOIN api_keys k ON k.id = w.api_key_id WHERE w.id = $1`,
    [watchId, now],
  );
  if (!row) return null;
  return row.passive ? "passive" : row.expired ? "expired" : null;
}

/**
 * Claims the run due at `due`: the watch, now due next at `next` and counted one run more, or
 * null when the run is no longer its to make (paused, deleted, or run by another instance).
 */
export async function claimRun(
  db: Queryable,
  run: { id: string; due: Date; next: Date; now: Date },
): Promise<Watch | null> {
  const [row] = await db.query<WatchRow>(
    `UPDATE watches SET next_run_at = $3, last_run_at = $4, runs = runs + 1
      WHERE id = $1 AND next_run_at = $2 AND paused_at IS NULL RETURNING ${COLUMNS}`,
    [run.id, run.due, run.next, run.now],
  );
  return row ? toWatch(row) : null;
}

/** Records the posts a run saw; those not seen before, in the order given. */
export async function recordSeen(db: Queryable, watchId: string, posts: readonly string[], now: Date) {
  const rows = await db.query<{ post_key: string }>(
    `INSERT INTO watch_posts (watch_id, post_key, seen_at) SELECT $1, post, $3 FROM unnest($2::text[]) AS post
     ON CONFLICT DO NOTHING RETURNING post_key`,
    [watchId, posts, now],
  );
  const fresh = new Set(rows.map((row) => row.post_key));
  return [...new Set(posts)].filter((post) => fresh.has(post));
}

/** Marks the watch's baseline taken now; true when this run is the one that took it (and so reports nothing). */
export async function takeBaseline(db: Queryable, watchId: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    "UPDATE watches SET baselined_at = $2 WHERE id = $1 AND baselined_at IS NULL RETURNING id",
    [watchId, now],
  );
  return rows.length > 0;
}

/**
 * Counts the watch's run as one call of its key against the key's day (count_watch_run, migration
 * 012): false when the day had none left, and the run is skipped.
 */
export async function countRun(db: Queryable, apiKeyId: string, now: Date): Promise<boolean> {
  const [row] = await db.query<{ left: number }>("SELECT count_watch_run($1, $2) AS left", [apiKeyId, now]);
  return row!.left >= 0;
}

/** What the latest run says: why it could not look, or null when it looked. */
export async function noteRun(db: Queryable, watchId: string, problem: string | null): Promise<void> {
  await db.query("UPDATE watches SET last_problem = $2 WHERE id = $1", [watchId, problem]);
}
