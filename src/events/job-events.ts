// What a job tells its owner's webhooks: each item that failed (job.item.failed) as it settles,
// and its end (job.completed, job.failed) once, by the instance that settled it. The data is the
// job as GET /api/v1/jobs/{id} shows it, without its items; an item's event carries that item too.
import type { Job, JobItem } from "../jobs/job.ts";
import type { JobEvents } from "../jobs/runner.ts";
import { jobRecord } from "../jobs/view.ts";
import type { Db } from "../store/db.ts";
import { claimJobEnd } from "../store/job-announcements.ts";
import { itemsOf, jobOf } from "../jobs/store.ts";
import { type DeliveryDeps, publishEvent } from "./delivery.ts";

const itemView = (item: JobItem) => ({ position: item.position, url: item.url, problem: item.problem });

export function jobEvents(deps: DeliveryDeps & { db: Db }): JobEvents {
  const publish = (job: Job, type: "job.completed" | "job.failed" | "job.item.failed", data: unknown, tx?: Db) =>
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
      await deps.db.transaction(async (tx) => {
        if (!(await claimJobEnd(tx, jobId, deps.now()))) return;
        const ended = (await jobOf(tx, jobId))!;
        await publish(ended, ended.status === "completed" ? "job.completed" : "job.failed", jobRecord(ended), tx as Db);
      });
    },
  };
}
