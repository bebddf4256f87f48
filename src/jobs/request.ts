// What POST /api/v1/jobs takes (docs/api.md, Jobs): its JSON body as a zod schema, which the
// OpenAPI document shows too, and the most items a job of each tier may hold.
import { z } from "zod";
import { ApiError } from "../http/problem.ts";
import { DownloadQuery, MAX_URL_LENGTH, TranscriptQuery } from "../http/query.ts";
import { clipRangeOf, clipTimeField } from "../http/clip-range.ts";
import type { JobRequest } from "./job.ts";

/**
 * JOB_MAX_ITEMS: the most items a job of a key of each tier holds, its links and what they expand
 * into together (a playlist past this is cut, and the job says so). A tier not listed gets FREE's.
 */
export const JOB_MAX_ITEMS: Readonly<Record<string, number>> = { FREE: 100, PRO: 1_000, GOLD: 5_000 };

export const jobMaxItemsOf = (tier: string): number => JOB_MAX_ITEMS[tier] ?? JOB_MAX_ITEMS.FREE!;

/** The furthest ahead a job's `runAt` may be: 30 days (docs/api.md, Jobs). */
export const MAX_RUN_AT_AHEAD_S = 30 * 24 * 3600;

/**
 * The largest body a job of a key of this tier can need: its most links at their longest, as
 * JSON, and room for the other fields. A FREE key's is 415 kB where GOLD's is 20.5 MB: a body is
 * refused once it passes its caller's bound, not read whole first.
 */
export const jobBodyBytesOf = (tier: string): number => jobMaxItemsOf(tier) * (MAX_URL_LENGTH + 8) + 4096;

const link = z
  .string()
  .max(MAX_URL_LENGTH)
  .pipe(z.url({ protocol: /^https?$/, error: "Each of `urls` must be an absolute http:// or https:// link." }))
  .meta({ format: "uri" });

export const JobBody = z.strictObject({
  urls: z
    .array(link)
    .min(1, "`urls` needs at least one link.")
    .describe(
      "The links, in the order the job runs them: posts, or playlists, channels, profiles and threads, which the job expands into their posts. 1 to the tier's JOB_MAX_ITEMS",
    ),
  files: z.boolean().default(false).describe(
    "Whether the job's archive holds each item's file (true) or only records.json",
  ),
  format: DownloadQuery.shape.format.describe("As `download` takes it: a format for every item's file"),
  audio: DownloadQuery.shape.audio.describe("As `download` takes it: each item's file as sound alone"),
  start: clipTimeField("start").optional().describe(
    "As `download` takes it: each item's video from here (seconds, or `[hh:]mm:ss[.fff]`; a JSON number is seconds), cut at the key frame at or before it; a photo is kept whole",
  ),
  end: clipTimeField("end").optional().describe("As `download` takes it: each item's video up to here"),
  transcripts: z.boolean().default(false).describe(
    "Whether the archive holds each item's transcript beside its files (`<position>-<platform>_<id>.<lang>.<vtt|srt|txt|json>`), as /api/v1/transcript gives it; a post without subtitles has none, and records.json says why",
  ),
  transcriptLang: TranscriptQuery.shape.lang.describe(
    "As `transcript` takes `lang`: the language of every item's transcript; an item without it has none, and records.json names those it has. Default: the first each post's record lists. Only with `transcripts: true` (else 400)",
  ),
  transcriptFormat: TranscriptQuery.shape.format.unwrap().default("vtt").describe(
    "As `transcript` takes `format`: `vtt` (default), `srt`, `text` or `json`. Only with `transcripts: true` (else 400)",
  ),
  runAt: z.iso.datetime({ offset: true, error: "`runAt` must be an ISO 8601 time, such as 2026-01-02T03:04:05Z." })
    .nullable().default(null).describe(
      "When the job starts (ISO 8601, at most 30 days ahead): it waits `queued` until then; without it, at once",
    ),
  threads: z.boolean().default(true).describe(
    "Whether a post link of a platform whose threads a job reads (docs/api.md, Jobs) stands for its author's thread (true) or for the post alone (false: no thread is read, and without an X session no job says it is incomplete for want of one)",
  ),
  webhook: z.string().nullable().default(null).describe(
    "The id of one of the account's webhook endpoints that alone hears of this job's events; without it every endpoint of the account that takes an event hears of it",
  ),
});

/** The body as a checked request, or 400 saying what is wrong with it; more links than the tier allows is 400 too. */
export function jobRequestOf(text: string, tier: string, now: Date): JobRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", 'Send the job as a JSON object: {"urls": ["https://..."]}.');
  }
  const parsed = JobBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
    throw new ApiError("invalid_request", `${issue.message}${where}`);
  }
  const { urls, files, format, audio, webhook, runAt, threads, start, end } = parsed.data;
  const { transcripts, transcriptLang, transcriptFormat } = parsed.data;
  if (!transcripts) refuseTranscriptFields(body as object);
  const most = jobMaxItemsOf(tier);
  if (urls.length > most) {
    throw new ApiError(
      "invalid_request",
      `A job of a ${tier} key holds at most ${most} items; this one has ${urls.length} links.`,
    );
  }
  const output = audio ?? "mp4";
  return {
    urls: urls.map((url) => new URL(url)),
    files,
    format: format || null,
    output,
    webhook,
    runAt: runAtOf(runAt, now),
    threads,
    clip: clipRangeOf(start, end),
    transcripts: transcripts ? { lang: transcriptLang ?? null, format: transcriptFormat } : null,
  };
}

/**
 * 400 for `transcriptLang` or `transcriptFormat` in a job without `transcripts: true`: such a job has no transcripts,
 * and a caller who named how to read them would otherwise get an archive without them and no word why. Read off the
 * body as sent, since the parsed one has `transcriptFormat`'s default whether it was given or not.
 */
function refuseTranscriptFields(body: object): void {
  const given = ["transcriptLang", "transcriptFormat"].find((field) => field in body);
  if (given === undefined) return;
  throw new ApiError(
    "invalid_request",
    `\`${given}\` says how a job's transcripts are read, and this job has none: add \`"transcripts": true\` or leave \`${given}\` out.`,
  );
}

/** `runAt` as a time no more than 30 days ahead (a time already past runs at once), or 400. */
function runAtOf(text: string | null, now: Date): string | null {
  if (text === null) return null;
  const at = new Date(text);
  if (at.getTime() - now.getTime() > MAX_RUN_AT_AHEAD_S * 1000) {
    throw new ApiError(
      "invalid_request",
      `\`runAt\` may be at most 30 days ahead, until ${
        new Date(now.getTime() + MAX_RUN_AT_AHEAD_S * 1000).toISOString()
      }.`,
    );
  }
  return at.toISOString();
}

/** Seconds the job waits before its expansion runs: 0 without `runAt` or once it has passed. */
export const secondsUntilRunAt = (request: JobRequest, now: Date): number =>
  request.runAt ? Math.max(0, Math.ceil((Date.parse(request.runAt) - now.getTime()) / 1000)) : 0;
