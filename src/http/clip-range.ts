// A clip's bounds as callers write them (`start`, `end`: seconds with a fraction, or
// `[hh:]mm:ss[.fff]`), read into seconds, and the checks that need no media: a malformed time, an
// `end` not after `start`. The checks against the media's length are the runner's (media/clip.ts).
import { z } from "zod";
import { ApiError } from "./problem.ts";

/** The part of the media a download sends, in seconds from its start; `endSec` null: to its end. */
export interface ClipRange {
  startSec: number;
  endSec: number | null;
  /** Cut at exactly these times (re-encoded) rather than at the key frame at or before `startSec`. */
  exact: boolean;
}

/** The longest time a bound may name: a week of media, far past any post's. */
const MAX_SECONDS = 7 * 24 * 3600;
const SECONDS = /^\d{1,6}(?:\.\d{1,3})?$/;
const CLOCK = /^(?:(\d{1,3}):)?([0-5]?\d):([0-5]\d(?:\.\d{1,3})?)$/;
/** Either form, as the OpenAPI document shows it. */
const CLIP_TIME = /^(?:\d{1,6}(?:\.\d{1,3})?|(?:\d{1,3}:)?[0-5]?\d:[0-5]\d(?:\.\d{1,3})?)$/;

/** Seconds from `text` (`75.5`, `1:15.5`, `01:01:15.500`), or null when it is neither form. */
export function parseClipTime(text: string): number | null {
  const trimmed = text.trim();
  if (SECONDS.test(trimmed)) return Number(trimmed);
  const clock = CLOCK.exec(trimmed);
  if (clock === null) return null;
  const [, hours, minutes, seconds] = clock;
  return Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds);
}

const malformed = (name: string) =>
  `\`${name}\` must be seconds (such as \`75\` or \`75.5\`) or a time as \`[hh:]mm:ss[.fff]\` (such as \`1:15.5\`).`;

/** Seconds from a bound as given (a JSON body may give a number), or a zod issue naming the parameter. */
function toSeconds(name: string) {
  return (value: string | number, context: z.RefinementCtx): number => {
    const seconds = typeof value === "number" ? value : parseClipTime(value);
    if (seconds === null || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_SECONDS) {
      context.addIssue({ code: "custom", message: malformed(name) });
      return z.NEVER;
    }
    return seconds;
  };
}

const description = (name: string) =>
  `${
    name === "start" ? "Where the clip starts" : "Where the clip ends"
  }: seconds with up to three decimals (\`75.5\`) or \`[hh:]mm:ss[.fff]\` (\`1:15.5\`)`;

/** A clip bound as a query parameter, read into seconds. */
export function clipTimeQuery(name: "start" | "end") {
  return z.string().max(20, malformed(name)).regex(CLIP_TIME, malformed(name)).transform(toSeconds(name)).describe(
    description(name),
  );
}

/** A clip bound in a JSON body: a number of seconds, or the same text as the query takes. */
export function clipTimeField(name: "start" | "end") {
  return z.union([z.number(), z.string().max(20, malformed(name))]).transform(toSeconds(name)).describe(
    description(name),
  );
}

/**
 * The range the bounds give, or null when neither is given; `end` not after `start` is 400
 * naming `end`. `exact` asks for a cut at the very times, which re-encodes.
 */
export function clipRangeOf(start: number | undefined, end: number | undefined, exact = false): ClipRange | null {
  if (start === undefined && end === undefined) return null;
  const startSec = start ?? 0;
  if (end !== undefined && end <= startSec) {
    throw new ApiError(
      "invalid_parameter",
      `\`end\` (${end} s) must be after \`start\` (${startSec} s): the clip is the media from \`start\` to \`end\`.`,
    );
  }
  return { startSec, endSec: end ?? null, exact };
}
