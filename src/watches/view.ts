// A watch as the API shows it (docs/api.md, Watches), and the list of an account's: zod schemas,
// which the OpenAPI document shows too.
import { z } from "zod";
import type { Watch } from "./watch.ts";
import { ClipFields, clipFieldsOf } from "../jobs/view.ts";

export const WatchRecord = z.object({
  id: z.string(),
  url: z.string(),
  every: z.number().int().nullable().describe("Seconds between runs; null for a watch on a `cron` line"),
  cron: z.string().nullable().describe("The cron line (UTC) it runs on; null for a watch run `every` so often"),
  request: z.object({
    files: z.boolean(),
    format: z.string().nullable(),
    audio: z.enum(["mp3", "m4a"]).nullable(),
    webhook: z.string().nullable(),
    ...ClipFields,
  }).describe("What each run's job takes"),
  createdAt: z.string().describe("ISO 8601 UTC"),
  paused: z.boolean(),
  pausedReason: z.string().nullable().describe(
    "Why it is paused: by its owner, or because its API key is passive or has expired (a run found it so)",
  ),
  nextRunAt: z.string().nullable().describe("ISO 8601 UTC: when it runs next; null while paused"),
  lastRunAt: z.string().nullable(),
  runs: z.number().int(),
  baselined: z.boolean().describe(
    "True once a run has seen the link's posts: those are never reported, only posts that come after",
  ),
  lastProblem: z.string().nullable().describe("Why the latest run could not look at the link; null when it looked"),
});

export const WatchList = z.object({ watches: z.array(WatchRecord).describe("The account's watches, newest first") });

export const watchRecord = (watch: Watch): z.infer<typeof WatchRecord> => ({
  id: watch.id,
  url: watch.url.href,
  every: "everyS" in watch.repeat ? watch.repeat.everyS : null,
  cron: "cron" in watch.repeat ? watch.repeat.cron : null,
  request: {
    files: watch.job.files,
    format: watch.job.format,
    audio: watch.job.output === "mp4" ? null : watch.job.output,
    webhook: watch.job.webhook,
    ...clipFieldsOf(watch.job.clip),
  },
  createdAt: watch.createdAt.toISOString(),
  paused: watch.pausedAt !== null,
  pausedReason: watch.pausedReason,
  nextRunAt: watch.pausedAt === null ? watch.nextRunAt.toISOString() : null,
  lastRunAt: watch.lastRunAt?.toISOString() ?? null,
  runs: watch.runs,
  baselined: watch.baselinedAt !== null,
  lastProblem: watch.lastProblem,
});
