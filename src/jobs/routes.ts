// The jobs' routes (docs/api.md, Jobs): POST /api/v1/jobs records a job and queues it,
// GET /api/v1/jobs/{id} shows it with a page of its items, DELETE cancels what has not run, and
// GET /api/v1/jobs lists the account's jobs, newest first. A job is its account's alone: another
// account's id is 404, as an id that never was.
import { requireJobEndpoint } from "../webhooks/endpoints.ts";
import type { ApiContext, ApiHandler } from "../auth/api-context.ts";
import { json } from "../http/json-response.ts";
import { ApiError } from "../http/problem.ts";
import { jobBodyBytesOf, jobRequestOf, secondsUntilRunAt } from "./request.ts";
import { ITEMS_PER_PAGE, JobList, JobRecord, jobRecord, JOBS_PER_PAGE, JobWithItems, jobWithItems } from "./view.ts";
import { JobBody } from "./request.ts";
import { jsonAnswer, rateLimitHeadersFor, requestIdHeader } from "../http/openapi-parts.ts";
import { idParamOf } from "../http/owned-resource.ts";
import type { RouteDeclaration } from "../http/route.ts";
import type { DownloadDeps } from "../operations/download.ts";
import type { TranscriptDeps } from "../operations/transcript.ts";
import { rateLimitHeaders, remainingOf, secondsUntil } from "../limits/admission.ts";
import { cancelJob, createJob, itemsOf, type JobsCursor, jobsOf } from "./store.ts";
import { JOB_ARCHIVE_PATH, JOBS_PATH, type JobsDeps, ownJob, queueOf } from "./own-job.ts";
import { jobArchiveHandler } from "./archive-route.ts";
import { boundedText } from "../util/bounded-text.ts";

/** POST /api/v1/jobs: 202 with the job and its Location; 429 up front when its links exceed what the key's day has left. */
function createJobHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const jobs = queueOf(deps);
    const most = jobBodyBytesOf(ctx.caller.key.tier);
    const text = await boundedText(
      ctx.request.body ?? new ReadableStream(),
      most,
      () => new ApiError("invalid_request", `A job's body from a ${ctx.caller.key.tier} key is at most ${most} bytes.`),
    );
    const request = { ...jobRequestOf(text, ctx.caller.key.tier, ctx.now), linkBase: new URL(ctx.request.url).origin };
    if (request.webhook) request.webhook = await requireJobEndpoint(deps.db, request.webhook, ctx.caller.key.accountId);
    const left = remainingOf(ctx.caller.key);
    if (request.urls.length > left) throw dayTooShort(ctx, request.urls.length, left);
    const job = await createJob(deps.db, {
      id: crypto.randomUUID(),
      accountId: ctx.caller.key.accountId,
      apiKeyId: ctx.caller.key.id,
      request,
      now: ctx.now,
    });
    await jobs.queueExpansion(job.id, secondsUntilRunAt(request, ctx.now));
    return json(jobRecord(job), { status: 202, headers: { location: `${JOBS_PATH}/${job.id}` } });
  };
}

/** 429: each item is one call of the key, and the day has fewer left than the job has links. */
function dayTooShort(ctx: ApiContext, links: number, left: number): ApiError {
  const retryAfter = secondsUntil(ctx.caller.key.dayFreesAt, ctx.now);
  return new ApiError(
    "quota_exceeded",
    `This job has ${links} links, each one call of the key, and the key's day has ${left} calls left; send at most ${left}, or retry in ${retryAfter} s.`,
    { headers: { ...rateLimitHeaders(ctx.caller.key, ctx.now), "retry-after": String(retryAfter) } },
  );
}

/** GET /api/v1/jobs/{id}: the job and a page of its items (`cursor`: the position after which the page starts). */
function jobHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const job = await ownJob(deps, ctx);
    const after = cursorOf(ctx.url, /^[0-9]{1,9}$/) ?? "0";
    const page = await itemsOf(deps.db, job.id, { after: Number(after), limit: ITEMS_PER_PAGE + 1 });
    // A finished job's archive, by a signed link (archive-route.ts).
    const archive = job.finishedAt !== null
      ? await ctx.linkTo(JOB_ARCHIVE_PATH.replace("{id}", encodeURIComponent(job.id)))({})
      : null;
    return json(await jobWithItems(job, page, ctx.links, archive));
  };
}

/** DELETE /api/v1/jobs/{id}: cancels what of the job has not run, and shows it. */
function cancelJobHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const job = await ownJob(deps, ctx);
    return json(jobRecord((await cancelJob(deps.db, job.id, ctx.caller.key.accountId, ctx.now))!));
  };
}

/** GET /api/v1/jobs: the account's jobs, newest first, a page at a time. */
function listJobsHandler(deps: JobsDeps): ApiHandler {
  return async (ctx) => {
    const cursor = cursorOf(ctx.url, /^[0-9]{1,16}~[0-9a-f-]{36}$/);
    const after: JobsCursor | null = cursor === null ? null : jobsCursorOf(cursor);
    const page = await jobsOf(deps.db, ctx.caller.key.accountId, { after, limit: JOBS_PER_PAGE + 1 });
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

/** The schemas the routes name, for the document's components. */
export const jobSchemas = { Job: JobRecord, JobWithItems, JobList } as const;

const idParam = idParamOf("job", JOBS_PATH);
const cursorParameter = (what: string) => ({
  name: "cursor",
  in: "query",
  required: false,
  description: `\`nextCursor\` of the previous page of ${what}; leave it out for the first`,
  schema: { type: "string", maxLength: 64 },
});

export const jobRoutes: RouteDeclaration<JobsDeps & DownloadDeps & TranscriptDeps, ApiHandler>[] = [
  {
    method: "POST",
    path: JOBS_PATH,
    operationId: "createJob",
    summary: "Run many links, or a playlist, channel, profile or thread, as one job",
    description:
      "Records the job and queues it; each item (a post, after the links are expanded) is one counted call of the key. A job of more links than the key's day has left is 429 `quota_exceeded` up front, saying how many calls are left.",
    body: JobBody,
    answers: jsonAnswer(202, "Job", "The job, queued", {
      Location: { description: "/api/v1/jobs/{id}", required: true, schema: { type: "string" } },
    }),
    errors: ["busy"],
    handler: createJobHandler,
  },
  {
    method: "GET",
    path: JOBS_PATH,
    operationId: "listJobs",
    summary: "The account's jobs, newest first",
    description: "Every job of the key's account, a page at a time.",
    parameters: [cursorParameter("jobs")],
    answers: jsonAnswer(200, "JobList", "A page of the account's jobs"),
    errors: ["invalid_parameter"],
    pastDay: true,
    handler: listJobsHandler,
  },
  {
    method: "GET",
    path: `${JOBS_PATH}/{id}`,
    params: idParam,
    operationId: "getJob",
    summary: "A job: its status, counts and a page of its items in order",
    description:
      "Each item shows its link, its status and either its post record (with signed `downloadUrl`s) or its problem. Another account's job is 404.",
    parameters: [cursorParameter("items")],
    answers: jsonAnswer(200, "JobWithItems", "The job and a page of its items"),
    errors: ["not_found", "invalid_parameter"],
    pastDay: true,
    handler: jobHandler,
  },
  {
    method: "DELETE",
    path: `${JOBS_PATH}/{id}`,
    params: idParam,
    operationId: "cancelJob",
    summary: "Cancel what of a job has not run",
    description: "Items that are running finish; the others are cancelled. Another account's job is 404.",
    answers: jsonAnswer(200, "Job", "The job as it is now"),
    errors: ["not_found"],
    pastDay: true,
    handler: cancelJobHandler,
  },
  {
    method: "GET",
    path: JOB_ARCHIVE_PATH,
    params: idParam,
    operationId: "getJobArchive",
    summary: "A finished job's files and records.json in one ZIP",
    description:
      "Each done item's files, fetched from the platforms as /api/v1/download fetches them while the archive is sent, with its transcript beside them where the job asked for `transcripts` (as /api/v1/transcript gives it), then `records.json` (the job and its items in order, each with the names of its files, and its `transcript` or `transcriptProblem`). Nothing is stored on the service; ZIP64 past 4 GiB. A file that fails breaks the transfer rather than ending the archive short. A job still queued or running is 409 `job_not_finished`; the job's `archiveUrl` is a signed link to this operation once it has finished.",
    answers: {
      200: {
        description:
          "The ZIP, made while it is sent: no Content-Length, and a transfer that breaks off is not a whole archive",
        headers: {
          ...rateLimitHeadersFor("admitted"),
          ...requestIdHeader,
          "Content-Disposition": {
            description: '`attachment; filename="job-<id>.zip"`',
            required: true,
            schema: { type: "string" },
          },
        },
        content: { "application/zip": { schema: { type: "string", contentMediaType: "application/zip" } } },
      },
    },
    errors: ["not_found", "job_not_finished"],
    handler: jobArchiveHandler,
  },
];
