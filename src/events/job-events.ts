// What a job tells its owner's webhooks: each item that failed (job.item.failed) as it settles,
// and its end (job.completed, job.failed) once, by the instance that settled it. The data is the
// job as GET /api/v1/jobs/{id} shows it, without its items; an item's event carries that item too.
// A job a watch's run made of the posts it found ends as `watch.found` instead: the watch, the
// job, and its posts' records (or their problems).
import type { Job, JobItem } from "../jobs/job.ts";
import type { JobEvents } from "../jobs/runner.ts";
import { jobRecord } from "../jobs/view.ts";
import type { Db } from "../store/db.ts";
import { claimJobEnd } from "../store/job-announcements.ts";
import { itemsOf, jobOf } from "../jobs/store.ts";
import { ITEMS_PER_PAGE } from "../jobs/view.ts";
import { watchOf } from "../jobs/watch-store.ts";
import { watchRecord } from "../jobs/watch-view.ts";
import type { Queryable } from "../store/db.ts";
import { type DeliveryDeps, publishEvent } from "./delivery.ts";
import type { EventType } from "./types.ts";

const itemView = (item: JobItem) => ({ position: item.position, url: item.url, problem: item.problem });

/** What a watch's job tells at its end: null when its watch is gone (deleted while the job ran). */
async function watchFound(db: Queryable, job: Job) {
  const watch = job.watchId === null ? null : await watchOf(db, job.watchId);
  if (watch === null) return null;
  const page = await itemsOf(db, job.id, { after: 0, limit: ITEMS_PER_PAGE + 1 });
  return {
    watch: watchRecord(watch),
    job: jobRecord(job),
    posts: page.slice(0, ITEMS_PER_PAGE),
    morePosts: page.length > ITEMS_PER_PAGE,
  };
}

export function jobEvents(deps: DeliveryDeps & { db: Db }): JobEvents {
  const publish = (job: Job, type: EventType, data: unknown, tx?: Db) =>
    publishEvent(deps, { accountId: Number(job.accountId), type, data, endpointId: job.request.webhook ?? null }, tx);

  async function itemFailed(job: Job, position: number): Promise<void> {
    const [item] = await itemsOf(deps.db, job.id, { after: position - 1, limit: 1 });
    if (item?.status === "failed") await publish(job, "job.item.failed", { job: jobRecord(job), item: itemView(item) });
  }

  return {
    async settled(jobId, position) {
      const job = await jobOf(deps.db, jobId);
      if (job === null) return;
      if (position !== null) await itemFailed(job, position);
      await deps.prepare();
      await deps.db.transaction(async (tx) => {
        if (!(await claimJobEnd(tx, jobId, deps.now()))) return;
        const ended = (await jobOf(tx, jobId))!;
        if (ended.watchId !== null) {
          const found = await watchFound(tx, ended);
          if (found !== null) await publish(ended, "watch.found", found, tx as Db);
          return;
        }
        await publish(ended, ended.status === "completed" ? "job.completed" : "job.failed", jobRecord(ended), tx as Db);
      });
    },
  };
}
