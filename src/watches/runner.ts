// What runs a watch, on whichever instance the queue hands its run to. Each run is a queue job
// carrying the watch's id and the time it was due; it claims its period in the store, queues the
// next run in the same transaction, and only then looks: so of two instances holding a run of one
// period one runs it, and a run that dies halfway still leaves the next one queued. A look expands
// the link as a job's expansion does, records the posts, and makes a job of those not seen before
// (each item counted against the key, as any job's); that job's end is the `watch.found` event.
// The run itself is one call of the key; a run past the key's day is skipped and says so. A run
// that finds the key's extraction slots all held gives its worker back and comes again a little
// later, its period claimed and counted already, as a job's expansion takes turns.
import { ApiError } from "../http/problem.ts";
import type { SlotHolder } from "../limits/slots.ts";
import type { JobDeps } from "../jobs/background.ts";
import { linkPostsOf } from "../jobs/expansion.ts";
import { queueItems } from "../jobs/queues.ts";
import { isNoSlot, whenSlotMayFree } from "../jobs/waits.ts";
import type { Queryable } from "../store/db.ts";
import type { Queue } from "../queue/queue.ts";
import { jobMaxItemsOf } from "../jobs/request.ts";
import { createJob } from "../jobs/store.ts";
import type { Watch } from "./watch.ts";
import { nextRunOf } from "./request.ts";
import {
  claimRun,
  countRun,
  keyHoldOf,
  noteRun,
  pauseWatch,
  recordSeen,
  resumeWatch,
  takeBaseline,
  watchOf,
} from "./store.ts";

const RUNS = "watch-runs";

export interface Watches {
  /** Queues the watch's run due at `due` (at once when that has passed). */
  queueRun(watchId: string, due: Date): Promise<void>;
  /**
   * Resumes the account's paused watch and queues its run (at once when one fell due while it
   * was paused): the watch, or null for no such watch. A watch not paused stays as it is.
   */
  resume(target: { id: string; accountId: number; now: Date }): Promise<Watch | null>;
  /** Starts this instance's worker on the watches' runs. */
  work(): Promise<void>;
}

interface Run {
  watchId: string;
  /** When the run was due, ISO 8601: the period it claims. */
  due: string;
  /**
   * On a run that found no slot and came again (its period claimed and counted already): the next
   * run its claim queued, ISO 8601. Once that run has claimed its own period, this one is dropped.
   */
  again?: string;
}

const secondsUntil = (at: Date, now: Date) => Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000));

export function createWatches(deps: JobDeps, queue: Queue): Watches {
  const runOf = (watchId: string, due: Date) => ({
    data: { watchId, due: due.toISOString() } satisfies Run,
    startAfterS: secondsUntil(due, deps.now()),
  });
  return {
    queueRun: (watchId, due) => queue.send(RUNS, [runOf(watchId, due)]),
    async resume(target) {
      const resumed = await resumeWatch(deps.db, target);
      if (resumed?.resumed) await queue.send(RUNS, [runOf(resumed.watch.id, resumed.watch.nextRunAt)]);
      return resumed?.watch ?? null;
    },
    work: () =>
      queue.work<Run>({
        queue: RUNS,
        concurrency: 2,
        run: async (run) => {
          const watch = run.again
            ? await stillWatching(deps, run.watchId, run.again)
            : await claim(deps, run, (next, tx) => queue.send(RUNS, [runOf(run.watchId, next)], tx));
          if (watch === null) return true;
          if ((await look(deps, queue, watch, !run.again)) === "no slot") {
            return whenSlotMayFree({ ...run, again: run.again ?? watch.nextRunAt.toISOString() });
          }
          // A look that failed says so on the watch; the next period looks again.
          return true;
        },
      }),
  };
}

/**
 * The watch, when this run is its to make: not paused, not deleted, its period not run yet, its
 * key usable (a passive or expired key pauses it here). The next run is queued with the claim.
 */
async function claim(
  deps: JobDeps,
  run: Run,
  queueNext: (next: Date, tx: Queryable) => Promise<void>,
): Promise<Watch | null> {
  const due = new Date(run.due);
  const now = deps.now();
  const watch = await watchOf(deps.db, run.watchId);
  if (watch === null || watch.pausedAt !== null || watch.nextRunAt.getTime() !== due.getTime()) return null;
  const hold = await keyHoldOf(deps.db, watch.id, now);
  if (hold !== null) {
    await pauseWatch(deps.db, { id: watch.id, accountId: null, reason: `its API key is ${hold}`, now });
    deps.log.info("a watch paused: its key may not run it", { watchId: watch.id, key: hold });
    return null;
  }
  const next = nextRunOf(watch.repeat, due, now);
  return deps.db.transaction(async (tx) => {
    const claimed = await claimRun(tx, { id: watch.id, due, next, now });
    if (claimed !== null) await queueNext(next, tx);
    return claimed;
  });
}

/**
 * The watch a run that came again looks for, unless it was paused or deleted meanwhile, or its next
 * run (`next`) has claimed a period of its own: that one looks instead.
 */
async function stillWatching(deps: JobDeps, watchId: string, next: string): Promise<Watch | null> {
  const watch = await watchOf(deps.db, watchId);
  if (watch === null || watch.pausedAt !== null) return null;
  return watch.nextRunAt.getTime() === Date.parse(next) ? watch : null;
}

/**
 * Expands the watch's link and makes a job of the posts not seen before; the first look only
 * records them. "no slot" when the key's extraction slots are all held: the run is to come again.
 * `count`: the run is counted here (not when it comes again).
 */
async function look(deps: JobDeps, queue: Queue, watch: Watch, count: boolean): Promise<"no slot" | void> {
  // A run is one call of the key (its listing is a look-up as `post`'s is); past the day it does not look.
  if (count && !(await countRun(deps.db, watch.apiKeyId, deps.now()))) {
    await noteRun(deps.db, watch.id, "Skipped: the key's daily limit was used up; the next run looks again.");
    return;
  }
  const [key] = await deps.db.query<{ tier: string }>("SELECT tier FROM api_keys WHERE id = $1", [watch.apiKeyId]);
  const tier = key?.tier ?? "FREE";
  const holder: SlotHolder = { id: watch.apiKeyId, accountId: Number(watch.accountId), tier };
  let posts: string[];
  let titles: ReadonlyMap<string, string | null>;
  try {
    // A watch on a thread hears of its author's new replies, as a job expands one.
    const { expansion } = await linkPostsOf(deps, watch.url, { limit: jobMaxItemsOf(tier), threads: true }, holder);
    if (expansion !== null && "posts" in expansion && expansion.posts.length === 0 && !expansion.complete) {
      await noteRun(deps.db, watch.id, `Its link's posts could not be listed: ${expansion.incomplete}.`);
      return;
    }
    if (expansion === null || "post" in expansion) {
      await noteRun(
        deps.db,
        watch.id,
        "The link is one post, not a channel, playlist or profile: nothing new can come.",
      );
      return;
    }
    posts = expansion.posts.map((post) => post.href);
    titles = new Map(posts.map((post, at) => [post, expansion.titles?.[at] ?? null]));
  } catch (error) {
    if (isNoSlot(error)) return "no slot";
    if (!(error instanceof ApiError)) {
      deps.log.error("a watch's link could not be expanded", { watchId: watch.id, error: String(error) });
    }
    const why = error instanceof ApiError ? `${error.code}: ${error.message}` : "the operator's log says why";
    await noteRun(deps.db, watch.id, `Its link could not be expanded (${why}).`);
    return;
  }
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    await noteRun(tx, watch.id, null);
    const fresh = await recordSeen(tx, watch.id, posts, now);
    if ((await takeBaseline(tx, watch.id, now)) || fresh.length === 0) return;
    const job = await createJob(tx, {
      id: crypto.randomUUID(),
      accountId: Number(watch.accountId),
      apiKeyId: watch.apiKeyId,
      request: { ...watch.job, urls: fresh.map((url) => new URL(url)), runAt: null },
      now,
      watchId: watch.id,
    });
    const found = { urls: fresh, titles: fresh.map((url) => titles.get(url) ?? null), incomplete: null };
    await queueItems(tx, queue, { job, tier, posts: found, now });
  });
}
