// What POST /api/v1/watches takes (docs/api.md, Watches): its JSON body as a zod schema, which the
// OpenAPI document shows too; the repeat checked against the shortest period the operator allows
// (WATCH_MIN_EVERY_S) and the longest, 7 days; and when a run that was due at one time is next due.
import { CronExpressionParser } from "cron-parser";
import { z } from "zod";
import { ApiError } from "../http/problem.ts";
import { clipRangeOf } from "../http/clip-range.ts";
import { JobBody } from "../jobs/request.ts";
import type { Repeat, WatchRequest } from "./watch.ts";

/** The longest period a watch may have: a week. */
export const MAX_EVERY_S = 7 * 24 * 3600;
/** The shortest by default (WATCH_MIN_EVERY_S): a quarter of an hour. */
export const DEFAULT_MIN_EVERY_S = 15 * 60;

const UNIT_S: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

export const WatchBody = z.strictObject({
  url: JobBody.shape.urls.element.describe("The link to watch: a channel, a playlist, a profile"),
  every: z.string().regex(/^[1-9][0-9]{0,6}[smhd]$/, "`every` is a number and a unit, such as 15m, 6h or 1d.")
    .optional().describe(
      "How often the watch runs: a number and s, m, h or d (15m to 7d; the operator's WATCH_MIN_EVERY_S may allow less). Give `every` or `cron`",
    ),
  cron: z.string().max(200).optional().describe(
    "When the watch runs, as a cron line of five fields in UTC (minute hour day month weekday), no two runs closer than `every` may be. Give `every` or `cron`",
  ),
  files: JobBody.shape.files.describe("As a job takes it: whether each run's job's archive holds the files"),
  format: JobBody.shape.format,
  audio: JobBody.shape.audio,
  start: JobBody.shape.start.describe("As a job takes it: each found post's video from here"),
  end: JobBody.shape.end.describe("As a job takes it: each found post's video up to here"),
  webhook: z.string().nullable().default(null).describe(
    "The id of one of the account's webhook endpoints that alone hears of this watch's `watch.found` (it must take that event); without it every endpoint of the account that takes `watch.found` hears of it",
  ),
});

/** The checked request, or 400 saying what is wrong with it. */
export function watchRequestOf(body: z.output<typeof WatchBody>, minEveryS: number, now: Date): WatchRequest {
  if ((body.every === undefined) === (body.cron === undefined)) {
    throw new ApiError("invalid_request", "Give the watch's repeat as one of `every` (such as 6h) or `cron`.");
  }
  const repeat: Repeat = body.every !== undefined
    ? { everyS: everyOf(body.every, minEveryS) }
    : { cron: cronOf(body.cron!, minEveryS, now) };
  return {
    url: new URL(body.url),
    repeat,
    job: {
      files: body.files,
      format: body.format || null,
      output: body.audio ?? "mp4",
      webhook: body.webhook,
      clip: clipRangeOf(body.start, body.end),
    },
  };
}

const shortest = (minEveryS: number) => `${minEveryS} s`;

function everyOf(text: string, minEveryS: number): number {
  const seconds = Number(text.slice(0, -1)) * UNIT_S[text.at(-1)!]!;
  if (seconds < minEveryS || seconds > MAX_EVERY_S) {
    throw new ApiError(
      "invalid_request",
      `\`every\` must be from ${shortest(minEveryS)} to 7 days (7d); ${text} is ${seconds} s.`,
    );
  }
  return seconds;
}

/** How many of a cron line's next runs are checked for two too close together. */
const CRON_RUNS_CHECKED = 50;

/** The cron line, when it parses as five fields and no two of its next runs are closer than the shortest period. */
function cronOf(text: string, minEveryS: number, now: Date): string {
  const line = text.trim().replace(/\s+/g, " ");
  let runs: number[];
  try {
    if (line.split(" ").length !== 5) throw new Error("not five fields");
    const expression = CronExpressionParser.parse(line, { currentDate: now, tz: "UTC" });
    runs = expression.take(CRON_RUNS_CHECKED).map((at) => at.getTime());
  } catch {
    throw new ApiError(
      "invalid_request",
      "`cron` must be a cron line of five fields in UTC (minute hour day month weekday), such as `0 6 * * *`.",
    );
  }
  const closest = Math.min(...runs.slice(1).map((at, index) => at - runs[index]!));
  if (closest < minEveryS * 1000) {
    throw new ApiError(
      "invalid_request",
      `\`cron\` runs ${closest / 1000} s apart at the closest; a watch runs at most every ${shortest(minEveryS)}.`,
    );
  }
  return line;
}

/**
 * When a run due at `due` is next due: the first time of the repeat after `due` that is not
 * already past, so a watch whose instances were all down for a while runs once, not once per
 * period missed.
 */
export function nextRunOf(repeat: Repeat, due: Date, now: Date): Date {
  if ("everyS" in repeat) {
    const periodMs = repeat.everyS * 1000;
    const missed = Math.max(0, Math.floor((now.getTime() - due.getTime()) / periodMs));
    return new Date(due.getTime() + (missed + 1) * periodMs);
  }
  const after = new Date(Math.max(due.getTime(), now.getTime()));
  return CronExpressionParser.parse(repeat.cron, { currentDate: after, tz: "UTC" }).next().toDate();
}
