// GET /api/v1/jobs/{id}/archive (docs/api.md, The archive of a job): a finished job's files and
// records.json in one ZIP, made while it is sent (jobs/archive.ts), each file got as `download`
// gets it (jobs/archive-files.ts). The job is the caller's account's alone (404 otherwise), and
// its archive is there once the job has finished: completed, or failed or cancelled with the
// items it did (409 before).
import type { ApiHandler } from "../auth/api-context.ts";
import { ApiError } from "../http/problem.ts";
import { contentDisposition } from "../media/filename.ts";
import { archiveStream } from "./archive.ts";
import { itemFiles, itemTranscripts } from "./archive-files.ts";
import type { JobItem } from "./job.ts";
import type { Db } from "../store/db.ts";
import { itemsOf } from "./store.ts";
import type { DownloadDeps } from "../operations/download.ts";
import type { TranscriptDeps } from "../operations/transcript.ts";
import { type JobsDeps, ownJob } from "./own-job.ts";

/** Items read from the store a page at a time, as the archive reaches them. */
const PAGE = 200;

async function* allItems(db: Db, jobId: string): AsyncGenerator<JobItem> {
  for (let after = 0;;) {
    const page = await itemsOf(db, jobId, { after, limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    after = page.at(-1)!.position;
  }
}

export function jobArchiveHandler(deps: JobsDeps & DownloadDeps & TranscriptDeps): ApiHandler {
  return async (ctx) => {
    const job = await ownJob(deps, ctx);
    if (job.finishedAt === null) {
      throw new ApiError(
        "job_not_finished",
        `This job is ${job.status}; its archive is there once it has finished, and the job shows \`archiveUrl\` then.`,
      );
    }
    const headers = {
      "content-type": "application/zip",
      "content-disposition": contentDisposition(`job-${job.id}.zip`),
      "cache-control": "no-store",
    };
    // HEAD asks for the headers alone: no file is fetched for it.
    if (ctx.request.method === "HEAD") return new Response(null, { headers });
    const body = archiveStream({
      job,
      items: allItems(deps.db, job.id),
      fileOf: itemFiles(deps, ctx, job.request),
      transcriptOf: itemTranscripts(deps, ctx, job.request),
      now: ctx.now,
    });
    return new Response(body, { headers });
  };
}
