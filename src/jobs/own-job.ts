// A job as its routes find it: the caller's account's alone (another account's id is 404, as an id
// that never was), and the queue that runs jobs, where this instance has one.
import type { ApiContext } from "../auth/api-context.ts";
import { ApiError } from "../http/problem.ts";
import type { Db } from "../store/db.ts";
import type { Jobs } from "./runner.ts";
import { jobOf } from "./store.ts";

export interface JobsDeps {
  db: Db;
  /** Absent where no queue runs (an app built without one): the routes answer 503. */
  jobs?: Jobs | null | undefined;
}

export const JOBS_PATH = "/api/v1/jobs";
export const JOB_ARCHIVE_PATH = `${JOBS_PATH}/{id}/archive`;

export function queueOf(deps: JobsDeps): Jobs {
  if (!deps.jobs) throw new ApiError("busy", "This instance runs no job queue; try again later.");
  return deps.jobs;
}

/** The job the path names, when it is the caller's account's; else 404. */
export async function ownJob(deps: JobsDeps, ctx: ApiContext) {
  const job = await jobOf(deps.db, ctx.params.id ?? "", ctx.caller.key.accountId);
  if (job === null) throw new ApiError("not_found", "This account has no job with this id.");
  return job;
}
