// A job as the API shows it (docs/api.md, Jobs): its record, its items with their post records'
// signed links, and the cursors that page through them. Zod schemas, which the OpenAPI document
// shows too.
import type { ClipRange } from "../http/clip-range.ts";
import { z } from "zod";
import type { LinkMaker } from "../auth/link-caller.ts";
import { withDownloadUrls } from "../operations/download-links.ts";
import { LinkedPostRecord } from "../platforms/records.ts";
import type { Job, JobItem } from "./job.ts";

/** Items shown on one page of a job. */
export const ITEMS_PER_PAGE = 100;
/** Jobs shown on one page of the list. */
export const JOBS_PER_PAGE = 50;

const ItemProblemRecord = z.object({
  code: z.string().describe("The error code the operation would have answered, from the error table"),
  detail: z.string(),
});

export const JobItemRecord = z.object({
  position: z.number().int().describe("1-based place in the job's reading order"),
  url: z.string(),
  status: z.enum(["queued", "running", "done", "failed", "cancelled"]),
  post: LinkedPostRecord.nullable().describe("The post's record once the item is done, with signed `downloadUrl`s"),
  problem: ItemProblemRecord.nullable().describe("Why the item failed"),
});

/** A request's clip as the API shows it: its bounds in seconds, each null when not given. */
export const ClipFields = {
  start: z.number().nullable().describe("Where each item's video starts, in seconds; null: at its start"),
  end: z.number().nullable().describe("Where each item's video ends, in seconds; null: at its end"),
};

export const clipFieldsOf = (clip: ClipRange | null | undefined) => ({
  start: clip ? clip.startSec : null,
  end: clip?.endSec ?? null,
});

export const JobRecord = z.object({
  id: z.string(),
  status: z.enum(["queued", "running", "completed", "failed", "cancelled"]),
  createdAt: z.string().describe("ISO 8601 UTC"),
  finishedAt: z.string().nullable().describe("ISO 8601 UTC; null until the job is completed, failed or cancelled"),
  counts: z.object({
    total: z.number().int().describe(
      "Items so far: each link's posts become items once it and every link before it are read (0 before the first)",
    ),
    done: z.number().int().describe("Items done: each has its post's record"),
    failed: z.number().int().describe("Items failed: each has its problem"),
    linksRead: z.number().int().describe(
      "How many of the request's links, in its order, are read and have their items; all of them once the job has every item",
    ),
  }),
  complete: z.boolean().describe("False when an expansion could not reach every post; `incomplete` says why"),
  incomplete: z.string().nullable(),
  request: z.object({
    urls: z.array(z.string()),
    files: z.boolean(),
    format: z.string().nullable(),
    audio: z.enum(["mp3", "m4a"]).nullable(),
    runAt: z.string().nullable().describe("ISO 8601 UTC: when the job starts; null when it started at once"),
    threads: z.boolean().describe("Whether a post link of a platform with threads stood for its author's thread"),
    ...ClipFields,
    transcripts: z.boolean().describe("Whether the archive holds each item's transcript beside its files"),
    transcriptLang: z.string().nullable().describe(
      "The language of the items' transcripts; null: the first each post's record lists",
    ),
    transcriptFormat: z.enum(["json", "text", "srt", "vtt"]).nullable().describe(
      "The format of the items' transcripts; null without `transcripts`",
    ),
  }),
});

export const JobWithItems = JobRecord.extend({
  archiveUrl: z.string().nullable().describe(
    "Once the job has finished (completed, failed or cancelled): a signed link to its archive (GET /api/v1/jobs/{id}/archive) that works without the key until it expires; null before",
  ),
  items: z.array(JobItemRecord).describe(`The items in reading order, at most ${ITEMS_PER_PAGE} a page`),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page of items; null on the last"),
});

export const JobList = z.object({
  jobs: z.array(JobRecord).describe(`The account's jobs, newest first, at most ${JOBS_PER_PAGE} a page`),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last"),
});

export function jobRecord(job: Job): z.infer<typeof JobRecord> {
  const { urls, files, format, output, runAt, threads } = job.request;
  return {
    id: job.id,
    status: job.status,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    counts: job.counts,
    complete: job.complete,
    incomplete: job.incomplete,
    request: {
      urls: urls.map((url) => url.href),
      files,
      format,
      audio: output === "mp4" ? null : output,
      runAt: runAt ?? null,
      threads: threads ?? true,
      ...clipFieldsOf(job.request.clip),
      transcripts: Boolean(job.request.transcripts),
      transcriptLang: job.request.transcripts?.lang ?? null,
      transcriptFormat: job.request.transcripts?.format ?? null,
    },
  };
}

/**
 * The job with one page of its items (`page` holds one more than is shown when there are more),
 * and the signed link to its archive once it has completed.
 */
export async function jobWithItems(
  job: Job,
  page: readonly JobItem[],
  links: LinkMaker,
  archiveUrl: string | null,
): Promise<z.infer<typeof JobWithItems>> {
  const shown = page.slice(0, ITEMS_PER_PAGE);
  const items = await itemRecords(job, shown, links);
  const more = page.length > ITEMS_PER_PAGE;
  return { ...jobRecord(job), archiveUrl, items, nextCursor: more ? String(shown.at(-1)!.position) : null };
}

/** The job's items as the API shows them: each done item's post record with its signed links. */
export function itemRecords(
  job: Job,
  items: readonly JobItem[],
  links: LinkMaker,
): Promise<z.infer<typeof JobItemRecord>[]> {
  return Promise.all(
    items.map(async (item) => ({
      position: item.position,
      url: item.url,
      status: item.status,
      post: item.post === null ? null : await withDownloadUrls(item.post, links, job.request.clip),
      problem: item.problem,
    })),
  );
}
