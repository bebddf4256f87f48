// A download's clip (`start`, `end`) applied to its plan: checked against the media's length
// where the source says it, and handed to ffmpeg, which reads only that part (input seeking) and
// copies it, or re-encodes the video for an exact cut. What was sent (where the clip really
// starts, how long it is) goes out in the response's headers.
import type { ClipRange } from "../http/clip-range.ts";
import { ApiError } from "../http/problem.ts";
import { keyFrameCut, type RemuxPlan } from "./ffmpeg.ts";
import type { RemuxJob } from "./plan.ts";

/** How far past a length the source gives in whole seconds (X rounds) an `end` may be. */
const ROUNDING_SLACK_SEC = 0.5;

const seconds = (value: number) => `${Number(value.toFixed(3))} s`;

/** 400 naming `start`: the clip starts at or past the media's end. */
export function startPastEnd(mediaSec: number | null): ApiError {
  const length = mediaSec === null ? "" : ` (${seconds(mediaSec)})`;
  return new ApiError(
    "invalid_parameter",
    `\`start\` is past the media's end${length}: nothing is left to send. Give a \`start\` within its length.`,
  );
}

/** 400 naming `start` or `end` when the clip lies past the media's length (when the source says it). */
export function requireWithin(clip: ClipRange, mediaSec: number | null): void {
  if (mediaSec === null) return;
  if (clip.startSec >= mediaSec) throw startPastEnd(mediaSec);
  if (clip.endSec !== null && clip.endSec > mediaSec + ROUNDING_SLACK_SEC) {
    throw new ApiError(
      "invalid_parameter",
      `\`end\` (${seconds(clip.endSec)}) is past the media's end (${
        seconds(mediaSec)
      }). Give an \`end\` within its length, or leave \`end\` out to send the rest.`,
    );
  }
}

/** 400 naming `cut`: an exact cut on an instance whose operator keeps re-encoding for what needs it. */
export function exactCutsOff(): ApiError {
  return new ApiError(
    "invalid_parameter",
    "`cut=exact` re-encodes the video, which this instance does not allow (its operator's CLIP_EXACT_CUTS); leave `cut` out to cut at the key frame at or before `start` (the `Clip-Start` header says where).",
  );
}

/**
 * The job cutting `clip` out of its media: an exact cut re-encodes the video (an encode slot),
 * where a key-frame cut copies it (a remux slot, as any page-mode download).
 */
export function clipped(job: RemuxJob, clip: ClipRange): RemuxJob {
  requireWithin(clip, job.durationSec);
  const exact = clip.exact && job.ffmpeg.output === "mp4" && job.ffmpeg.videoInput !== null;
  return { ...job, ffmpeg: { ...job.ffmpeg, clip, ...(exact ? { transcodeVideo: true } : {}) } };
}

/** What a clip sends, as far as it is known before ffmpeg runs. */
export interface ClipSpan {
  /** Where it was asked to start. */
  startSec: number;
  /** Where it ends: its `end`, else the media's end when the source says it; null when neither is known. */
  endSec: number | null;
  /** Whether it starts at a key frame at or before `startSec` (known once ffmpeg says it), rather than at it. */
  keyFrame: boolean;
}

export function clipSpan(plan: RemuxPlan, mediaSec: number | null): ClipSpan | null {
  if (plan.clip === undefined) return null;
  return { startSec: plan.clip.startSec, endSec: plan.clip.endSec ?? mediaSec, keyFrame: keyFrameCut(plan) };
}

/** The headers that say what was sent: where the clip starts and, when its end is known, how long it is. */
export function clipHeaders(startSec: number, endSec: number | null): Record<string, string> {
  return {
    "clip-start": startSec.toFixed(3),
    ...(endSec === null ? {} : { "clip-duration": Math.max(0, endSec - startSec).toFixed(3) }),
  };
}
