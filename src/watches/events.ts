// What a watch's run tells its owner's webhooks: the job it made of the posts it found ends as
// `watch.found` (the job's events, jobs/events.ts, are handed this as `watchFound`): the watch, the
// job, and its posts' records (or their problems). A run that found nothing made no job.
import type { Job } from "../jobs/job.ts";
import { itemsOf } from "../jobs/store.ts";
import { ITEMS_PER_PAGE, jobRecord } from "../jobs/view.ts";
import type { Queryable } from "../store/db.ts";
import { watchOf } from "./store.ts";
import { watchRecord } from "./view.ts";

/** The data of `watch.found` for a watch's job; null when its watch is gone (deleted while the job ran). */
export async function watchFound(db: Queryable, job: Job) {
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
