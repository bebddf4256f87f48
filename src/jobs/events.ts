// What a job tells its owner's webhooks: each item that failed (job.item.failed) as it settles,
// and its end (job.completed, job.failed) once, by the instance that settled it. The data is the
// job as GET /api/v1/jobs/{id} shows it, without its items; an item's event carries that item too.
// A job a watch's run made of the posts it found ends as `watch.found` instead, whose data the
// watches make (watches/events.ts), handed in as `watchFound`.
import { z } from "zod";
import { type LinkMaker, type LinkSettings, signerAt } from "../auth/link-caller.ts";
import type { Job, JobItem } from "./job.ts";
import type { JobEvents } from "./background.ts";
import { JobItemRecord, JobRecord, jobRecord, JobWithItems } from "./view.ts";
import { JOB_ARCHIVE_PATH } from "./own-job.ts";
import type { Db } from "../store/db.ts";
import { claimJobEnd } from "./announcements.ts";
import { itemsOf, jobOf } from "./store.ts";
import type { Queryable } from "../store/db.ts";
import { type DeliveryDeps, publishEvent } from "../webhooks/delivery.ts";
import type { EventType } from "../webhooks/types.ts";

/** `job.completed` and `job.failed`: the job, and its archive's signed link when it has files. */
export const JobEndedEvent = JobRecord.extend({
  archiveUrl: JobWithItems.shape.archiveUrl.describe(
    "A signed link to the job's archive (GET /api/v1/jobs/{id}/archive), made for the job's key, that works without the key until it expires; null when the job has no files (records only, or no item done)",
  ),
});

/** `job.item.failed`: the job as it stands, and the item that failed. */
export const JobItemFailedEvent = z.object({
  job: JobRecord,
  item: JobItemRecord.pick({ position: true, url: true, problem: true }),
});

const itemView = (item: JobItem) => ({ position: item.position, url: item.url, problem: item.problem });

/** The data of a watch's job's `watch.found` (its posts' links signed by `links`); null when its watch is gone. */
export type WatchFound = (db: Queryable, job: Job, links: LinkMaker) => Promise<unknown | null>;

/** Where the links of a job's events start, how long they last (PUBLIC_URL, LINK_TTL_S), and the clock the API checks them by. */
export type EventLinks = Pick<LinkSettings, "publicUrl" | "ttlS"> & { now: () => Date };

export function jobEvents(
  deps: DeliveryDeps & { db: Db; watchFound: WatchFound; links: EventLinks },
): JobEvents {
  const publish = (job: Job, type: EventType, data: unknown, tx?: Db) =>
    publishEvent(deps, { accountId: Number(job.accountId), type, data, endpointId: job.request.webhook ?? null }, tx);
  // No request to take an origin from: the job remembers where its caller reached the service.
  // Read by the transaction that settles the job: on PGlite another read would wait for it.
  const signer = (db: Queryable, job: Job, path?: string) => {
    const base = deps.links.publicUrl?.replace(/\/+$/, "") || job.request.linkBase || "";
    return signerAt({ db, ttlS: deps.links.ttlS }, base, job.apiKeyId, deps.links.now(), path);
  };
  const ended = async (db: Queryable, job: Job): Promise<z.infer<typeof JobEndedEvent>> => ({
    ...jobRecord(job),
    archiveUrl: job.request.files && job.counts.done > 0
      ? await signer(db, job, JOB_ARCHIVE_PATH.replace("{id}", encodeURIComponent(job.id)))({})
      : null,
  });

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
        const end = (await jobOf(tx, jobId))!;
        if (end.watchId !== null) {
          const found = await deps.watchFound(tx, end, signer(tx, end));
          if (found !== null) await publish(end, "watch.found", found, tx as Db);
          return;
        }
        await publish(end, end.status === "completed" ? "job.completed" : "job.failed", await ended(tx, end), tx as Db);
      });
    },
  };
}
