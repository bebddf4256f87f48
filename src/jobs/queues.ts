// The queues a job's work goes on, and how each key's part of them is shared: every run of a job
// is in its key's group, on its tier's lane (src/queue/queue.ts), so no key takes another's turns.
// A job's expansion starts it; its links are read in parts, each on whichever instance takes it;
// each item of the posts they stand for then runs on its own.
import type { Queue } from "../queue/queue.ts";
import type { Queryable } from "../store/db.ts";
import { addItems } from "./store.ts";
import type { Job } from "./job.ts";

export const EXPANSIONS = "job-expansions";
export const LINKS = "job-links";
export const ITEMS = "job-items";

/**
 * Items of one key that run at once on an instance, by tier: its fair share of the instance's
 * job work. Links of one key read at once on an instance, too. An item or a read that extracts also
 * holds one of the key's extraction slots (slotsPerTier).
 */
export const JOB_ITEMS_AT_ONCE: Readonly<Record<string, number>> = { FREE: 2, PRO: 8, GOLD: 32 };

/**
 * Parts of a job's links one key reads at once on an instance, by tier: one, which reads up to the
 * key's share of links at once (JOB_ITEMS_AT_ONCE); each instance reads a part of its own.
 */
export const LINK_PARTS_AT_ONCE: Readonly<Record<string, number>> = { FREE: 1, PRO: 1, GOLD: 1 };

/** Expansions of one key that start at once on an instance, by tier: a start only puts the job's links on the queue. */
export const EXPANSIONS_AT_ONCE: Readonly<Record<string, number>> = { FREE: 1, PRO: 2, GOLD: 4 };

/** A key and its tier: the group a job's runs share. */
export interface KeyGroup {
  id: string;
  tier: string;
}

/** The key and tier a job's work is shared by. */
export async function groupOf(db: Queryable, jobId: string): Promise<KeyGroup> {
  const [row] = await db.query<KeyGroup>(
    "SELECT k.id, k.tier FROM jobs j JOIN api_keys k ON k.id = j.api_key_id WHERE j.id = $1",
    [jobId],
  );
  return row ?? { id: jobId, tier: "FREE" };
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
export async function queueAt(
  tx: Queryable,
  queue: Queue,
  { jobId, group, positions }: { jobId: string; group: KeyGroup; positions: readonly number[] },
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
