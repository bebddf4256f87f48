// What POST /api/v1/jobs takes (docs/api.md, Jobs): its JSON body as a zod schema, which the
// OpenAPI document shows too, and the most items a job of each tier may hold.
import { z } from "zod";
import { ApiError } from "../http/problem.ts";
import { DownloadQuery, MAX_URL_LENGTH } from "../http/query.ts";
import type { JobRequest } from "./job.ts";

/**
 * JOB_MAX_ITEMS: the most items a job of a key of each tier holds, its links and what they expand
 * into together (a playlist past this is cut, and the job says so). A tier not listed gets FREE's.
 */
export const JOB_MAX_ITEMS: Readonly<Record<string, number>> = { FREE: 100, PRO: 1_000, GOLD: 5_000 };

export const jobMaxItemsOf = (tier: string): number => JOB_MAX_ITEMS[tier] ?? JOB_MAX_ITEMS.FREE!;

/** The largest body a job can need: the largest tier's links at their longest, as JSON. */
export const MAX_JOB_BODY_BYTES = Math.max(...Object.values(JOB_MAX_ITEMS)) * (MAX_URL_LENGTH + 8) + 4096;

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
  webhook: z.string().nullable().default(null).describe(
    "The id of one of the account's webhook endpoints that alone hears of this job's events; without it every endpoint of the account that takes an event hears of it",
  ),
});

/** The body as a checked request, or 400 saying what is wrong with it; more links than the tier allows is 400 too. */
export function jobRequestOf(text: string, tier: string): JobRequest {
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
  const { urls, files, format, audio, webhook } = parsed.data;
  const most = jobMaxItemsOf(tier);
  if (urls.length > most) {
    throw new ApiError(
      "invalid_request",
      `A job of a ${tier} key holds at most ${most} items; this one has ${urls.length} links.`,
    );
  }
  return { urls: urls.map((url) => new URL(url)), files, format: format || null, output: audio ?? "mp4", webhook };
}
