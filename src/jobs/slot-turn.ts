// A job's work waits its turn: while the slots it needs are taken (the 429 of a cap the key's own
// calls, or the jobs' share, hold), it is asked again every half second instead of failing. The
// items of a job wait for extraction slots; a job's archive, which has begun its transfer, waits
// for download slots too.
import type { ErrorCode } from "../http/errors.ts";
import { ApiError } from "../http/problem.ts";

const SLOT_WAIT_MS = 500;

/**
 * How long a turn that found no slot of its key waits, off the queue's workers, before it comes
 * again: about as long as an extraction takes. A job's expansion and a watch's run take turns so.
 */
export const NO_SLOT_WAIT_S = 1;

/** `work`, asked again while it fails with one of `codes`, until `signal` (when given) ends the wait. */
export async function whenSlotFrees<T>(
  work: () => Promise<T>,
  codes: readonly ErrorCode[] = ["too_many_extractions"],
  signal?: AbortSignal,
): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ApiError && codes.includes(error.code)) || signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, SLOT_WAIT_MS));
    }
  }
}
