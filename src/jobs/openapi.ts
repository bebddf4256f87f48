// The jobs' operations in the OpenAPI document (docs/api.md, Jobs): POST and GET /api/v1/jobs,
// GET and DELETE /api/v1/jobs/{id}, GET (and HEAD) /api/v1/jobs/{id}/archive. Their schemas are the ones the handlers parse and answer with
// (src/jobs/request.ts, src/jobs/view.ts), so a generated client needs no glue.
import { JobBody } from "./request.ts";
import { JobList, JobRecord, JobWithItems } from "./view.ts";
import type { ErrorCode } from "../http/errors.ts";
import {
  idParameterOf,
  jsonAnswer,
  problemResponses,
  rateLimitHeadersFor,
  requestBodySchema,
  requestIdHeader,
  type Responses,
  withHead,
} from "../http/openapi-parts.ts";

type Json = Record<string, unknown>;

/** The schemas the jobs' operations name, for the document's components. */
export const jobSchemas = { Job: JobRecord, JobWithItems, JobList } as const;

const idParameter = idParameterOf("job", "/api/v1/jobs");
const cursorParameter = (what: string) => ({
  name: "cursor",
  in: "query",
  required: false,
  description: `\`nextCursor\` of the previous page of ${what}; leave it out for the first`,
  schema: { type: "string", maxLength: 64 },
});

/** The jobs' paths, each operation with its answers and `common` codes besides its own. */
export function jobPaths(common: readonly ErrorCode[]): Record<string, Json> {
  const problems = (own: readonly ErrorCode[]) => problemResponses([...common, ...own]);
  return {
    "/api/v1/jobs": {
      post: {
        operationId: "createJob",
        summary: "Run many links, or a playlist, channel, profile or thread, as one job",
        description:
          "Records the job and queues it; each item (a post, after the links are expanded) is one counted call of the key. A job of more links than the key's day has left is 429 `quota_exceeded` up front, saying how many calls are left.",
        requestBody: { required: true, content: { "application/json": { schema: requestBodySchema(JobBody) } } },
        responses: {
          ...jsonAnswer(202, "Job", "The job, queued", {
            Location: { description: "/api/v1/jobs/{id}", required: true, schema: { type: "string" } },
          }),
          ...problems(["busy"]),
        },
      },
      ...withHead("listJobs", {
        summary: "The account's jobs, newest first",
        description: "Every job of the key's account, a page at a time.",
        parameters: [cursorParameter("jobs")],
        responses: {
          ...jsonAnswer(200, "JobList", "A page of the account's jobs"),
          ...problems(["invalid_parameter"]),
        },
      }),
    },
    "/api/v1/jobs/{id}": {
      ...withHead("getJob", {
        summary: "A job: its status, counts and a page of its items in order",
        description:
          "Each item shows its link, its status and either its post record (with signed `downloadUrl`s) or its problem. Another account's job is 404.",
        parameters: [idParameter, cursorParameter("items")],
        responses: {
          ...jsonAnswer(200, "JobWithItems", "The job and a page of its items"),
          ...problems(["not_found", "invalid_parameter"]),
        },
      }),
      delete: {
        operationId: "cancelJob",
        summary: "Cancel what of a job has not run",
        description: "Items that are running finish; the others are cancelled. Another account's job is 404.",
        parameters: [idParameter],
        responses: { ...jsonAnswer(200, "Job", "The job as it is now"), ...problems(["not_found"]) },
      },
    },
    "/api/v1/jobs/{id}/archive": archivePath(problems(["not_found", "job_not_finished"])),
  };
}

function archivePath(problems: Responses): Json {
  return withHead("getJobArchive", {
    summary: "A finished job's files and records.json in one ZIP",
    description:
      "Each done item's files, fetched from the platforms as /api/v1/download fetches them while the archive is sent, then `records.json` (the job and its items in order, each with the names of its files). Nothing is stored on the service; ZIP64 past 4 GiB. A file that fails breaks the transfer rather than ending the archive short. A job still queued or running is 409 `job_not_finished`; the job's `archiveUrl` is a signed link to this operation once it has finished.",
    parameters: [idParameter],
    responses: {
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
      ...problems,
    },
  });
}
