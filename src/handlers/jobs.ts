// The jobs' operations (docs/api.md, Jobs): POST /api/v1/jobs records a job and queues it,
// GET /api/v1/jobs/{id} shows it with a page of its items, DELETE cancels what has not run, and
// GET /api/v1/jobs lists the account's jobs, newest first. A job is its account's alone: another
// account's id is 404, as an id that never was.
import { requireJobEndpoint } from "../events/endpoints.ts";
import type { ApiContext, ApiHandler } from "../auth/api-context.ts";
import { json } from "../http/json-response.ts";
import { ApiError } from "../http/problem.ts";
import type { Jobs } from "../jobs/runner.ts";
import { jobBodyBytesOf, jobRequestOf, secondsUntilRunAt } from "../jobs/request.ts";
import { ITEMS_PER_PAGE, jobRecord, JOBS_PER_PAGE, jobWithItems } from "../jobs/view.ts";
import { rateLimitHeaders, remainingOf, secondsUntil } from "../limits/admission.ts";
import type { Db } from "../store/db.ts";
import { cancelJob, createJob, itemsOf, jobOf, type JobsCursor, jobsOf } from "../jobs/store.ts";
import { boundedText } from "../util/bounded-text.ts";

export interface JobsDeps {
  db: Db;
  /** Absent where no queue runs (an app built without one): the operations answer 503. */
  jobs?: Jobs | null | undefined;
}

export const JOBS_PATH = "/api/v1/jobs";
export const JOB_PATH = "/api/v1/jobs/{id}";
export const JOB_ARCHIVE_PATH = "/api/v1/jobs/{id}/archive";

function queueOf(deps: JobsDeps): Jobs {
  if (!deps.jobs) throw new ApiError("busy", "This instance runs no job queue; try again later.");
  return deps.jobs;
}

/** POST /api/v1/jobs: 202 with the job and its Location; 429 up front when its links exceed what the key's day has left. */
export function createJobHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const jobs = queueOf(deps);
    const most = jobBodyBytesOf(ctx.key.tier);
    const text = await boundedText(
      ctx.request.body ?? new ReadableStream(),
      most,
      () => new ApiError("invalid_request", `A job's body from a ${ctx.key.tier} key is at most ${most} bytes.`),
    );
    const request = jobRequestOf(text, ctx.key.tier, ctx.now);
    if (request.webhook) request.webhook = await requireJobEndpoint(deps.db, request.webhook, ctx.key.accountId);
    const left = remainingOf(ctx.key);
    if (request.urls.length > left) throw dayTooShort(ctx, request.urls.length, left);
    const job = await createJob(deps.db, {
      id: crypto.randomUUID(),
      accountId: ctx.key.accountId,
      apiKeyId: ctx.key.id,
      request,
      now: ctx.now,
    });
    await jobs.queueExpansion(job.id, secondsUntilRunAt(request, ctx.now));
    return json(jobRecord(job), { status: 202, headers: { location: `${JOBS_PATH}/${job.id}` } });
  };
}

/** 429: each item is one call of the key, and the day has fewer left than the job has links. */
function dayTooShort(ctx: ApiContext, links: number, left: number): ApiError {
  const retryAfter = secondsUntil(ctx.key.dayFreesAt, ctx.now);
  return new ApiError(
    "quota_exceeded",
    `This job has ${links} links, each one call of the key, and the key's day has ${left} calls left; send at most ${left}, or retry in ${retryAfter} s.`,
    { headers: { ...rateLimitHeaders(ctx.key, ctx.now), "retry-after": String(retryAfter) } },
  );
}

/** The job the path names, when it is the caller's account's; else 404. */
export async function ownJob(deps: JobsDeps, ctx: ApiContext) {
  const id = ctx.url.pathname.slice(JOBS_PATH.length + 1).split("/")[0] ?? "";
  const job = await jobOf(deps.db, id, ctx.key.accountId);
  if (job === null) throw new ApiError("not_found", "This account has no job with this id.");
  return job;
}

/** GET /api/v1/jobs/{id}: the job and a page of its items (`cursor`: the position after which the page starts). */
export function jobHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const job = await ownJob(deps, ctx);
    const after = cursorOf(ctx.url, /^[0-9]{1,9}$/) ?? "0";
    const page = await itemsOf(deps.db, job.id, { after: Number(after), limit: ITEMS_PER_PAGE + 1 });
    // A finished job's archive, by a signed link (handlers/job-archive.ts).
    const archive = job.finishedAt !== null
      ? await ctx.linkTo(JOB_ARCHIVE_PATH.replace("{id}", encodeURIComponent(job.id)))({})
      : null;
    return json(await jobWithItems(job, page, ctx.links, archive));
  };
}

/** DELETE /api/v1/jobs/{id}: cancels what of the job has not run, and shows it. */
export function cancelJobHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const job = await ownJob(deps, ctx);
    return json(jobRecord((await cancelJob(deps.db, job.id, ctx.key.accountId, ctx.now))!));
  };
}

/** GET /api/v1/jobs: the account's jobs, newest first, a page at a time. */
export function listJobsHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const cursor = cursorOf(ctx.url, /^[0-9]{1,16}~[0-9a-f-]{36}$/);
    const after: JobsCursor | null = cursor === null ? null : jobsCursorOf(cursor);
    const page = await jobsOf(deps.db, ctx.key.accountId, { after, limit: JOBS_PER_PAGE + 1 });
    const shown = page.slice(0, JOBS_PER_PAGE);
    const last = shown.at(-1);
    const more = page.length > JOBS_PER_PAGE && last !== undefined;
    return json({
      jobs: shown.map(jobRecord),
      nextCursor: more ? `${last.createdAt.getTime()}~${last.id}` : null,
    });
  };
}

/**
 * A list cursor as the time and id it holds; 400 for one of the right form whose time is past what
 * a Date holds (16 digits reach past 8.64e15 ms), which no job of this service was made at.
 */
function jobsCursorOf(cursor: string): JobsCursor {
  const [ms, id] = cursor.split("~") as [string, string];
  const createdAt = new Date(Number(ms));
  if (Number.isNaN(createdAt.getTime())) throw badCursor();
  return { createdAt, id };
}

const badCursor = () =>
  new ApiError("invalid_parameter", "`cursor` is not one this service gave; pass `nextCursor` as it came.");

/** The `cursor` parameter when there is one; 400 when it is not one this service gave; 400 for any other parameter. */
function cursorOf(url: URL, form: RegExp): string | null {
  for (const name of url.searchParams.keys()) {
    if (name !== "cursor") {
      throw new ApiError(
        "unknown_parameter",
        `This operation takes no \`${name.slice(0, 64)}\` parameter; only \`cursor\`.`,
      );
    }
  }
  const cursor = url.searchParams.get("cursor") || null;
  if (cursor !== null && !form.test(cursor)) throw badCursor();
  return cursor;
}
