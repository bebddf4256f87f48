// What a watch's run tells its owner's webhooks: the job it made of the posts it found ends as
// `watch.found` (the job's events, jobs/events.ts, are handed this as `watchFound`): the watch, the
// job, and its posts' records with their signed links (or their problems). A run that found
// nothing made no job.
import { z } from "zod";
import type { LinkMaker } from "../auth/link-caller.ts";
import type { Job } from "../jobs/job.ts";
import { itemsOf } from "../jobs/store.ts";
import { itemRecords, ITEMS_PER_PAGE, JobItemRecord, JobRecord, jobRecord } from "../jobs/view.ts";
import type { Queryable } from "../store/db.ts";
import { watchOf } from "./store.ts";
import { WatchRecord, watchRecord } from "./view.ts";

/** `watch.found`: the watch, the job its run made, and the posts it found. */
export const WatchFoundEvent = z.object({
  watch: WatchRecord,
  job: JobRecord,
  posts: z.array(JobItemRecord).describe(
    `The posts found, as the job's items: each done one's record with signed \`downloadUrl\`s; at most ${ITEMS_PER_PAGE}`,
  ),
  morePosts: z.boolean().describe("True when the run found more posts than are shown: the job lists them all"),
});

/** The data of `watch.found` for a watch's job; null when its watch is gone (deleted while the job ran). */
export async function watchFound(
  db: Queryable,
  job: Job,
  links: LinkMaker,
): Promise<z.infer<typeof WatchFoundEvent> | null> {
  const watch = job.watchId === null ? null : await watchOf(db, job.watchId);
  if (watch === null) return null;
  const page = await itemsOf(db, job.id, { after: 0, limit: ITEMS_PER_PAGE + 1 });
  return {
    watch: watchRecord(watch),
    job: jobRecord(job),
    posts: await itemRecords(job, page.slice(0, ITEMS_PER_PAGE), links),
    morePosts: page.length > ITEMS_PER_PAGE,
  };
}
