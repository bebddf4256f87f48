// What a job tells its owner's webhooks: each item that failed (job.item.failed) as it settles,
// and its end (job.completed, job.failed) once, by the instance that settled it. The data is the
// job as GET /api/v1/jobs/{id} shows it, without its items; an item's event carries that item too.
// A job a watch's run made of the posts it found ends as `watch.found` instead, whose data the
// watches make (watches/events.ts), handed in as `watchFound`.
import type { Job, JobItem } from "./job.ts";
import type { JobEvents } from "./runner.ts";
import { jobRecord } from "./view.ts";
import type { Db } from "../store/db.ts";
import { claimJobEnd } from "./announcements.ts";
import { itemsOf, jobOf } from "./store.ts";
import type { Queryable } from "../store/db.ts";
import { type DeliveryDeps, publishEvent } from "../webhooks/delivery.ts";
import type { EventType } from "../webhooks/types.ts";

const itemView = (item: JobItem) => ({ position: item.position, url: item.url, problem: item.problem });

/** The data of a watch's job's `watch.found`; null when its watch is gone (deleted while the job ran). */
export type WatchFound = (db: Queryable, job: Job) => Promise<unknown | null>;

export function jobEvents(deps: DeliveryDeps & { db: Db; watchFound: WatchFound }): JobEvents {
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
          const found = await deps.watchFound(tx, ended);
          if (found !== null) await publish(ended, "watch.found", found, tx as Db);
          return;
        }
        await publish(ended, ended.status === "completed" ? "job.completed" : "job.failed", jobRecord(ended), tx as Db);
      });
    },
  };
}
