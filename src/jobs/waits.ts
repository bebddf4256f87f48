// How a job's work waits. For a slot: while the slots it needs are taken (the 429 of a cap the
// key's own calls, or the jobs' share, hold), an item's file check or a job's archive is asked
// again every half second instead of failing (it has begun and holds its turn); a link's read and a
// watch's run give their worker back and come again a little later. For a platform's rest: a run
// that met one comes again when the platform may be asked again.
import { type ErrorCode, errorTable } from "../http/errors.ts";
import { ApiError } from "../http/problem.ts";
import type { Again } from "../queue/queue.ts";

const SLOT_WAIT_MS = 500;

/**
 * How long a run that found no slot of its key waits, off the queue's workers, before it comes
 * again: about as long as an extraction takes.
 */
const NO_SLOT_WAIT_S = 1;

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

/** Whether `error` says the key's extraction slots (or the jobs' share of them) are all held. */
export const isNoSlot = (error: unknown): boolean => error instanceof ApiError && error.code === "too_many_extractions";

/** The run of `data` again when a slot may have freed. */
export const whenSlotMayFree = <Data>(data: Data): Again<Data> => ({ againInS: NO_SLOT_WAIT_S, data });

/** Whether a failure may pass when the same run comes again later: the platform's 502, 503 or 504. */
export const retryHelps = (error: ApiError) => errorTable[error.code].retry && [502, 503, 504].includes(error.status);

/** A run's data, with how long it has waited for its platform to be asked again, in seconds. */
export interface Resting {
  restedS?: number;
}

/**
 * How long a run waits out its platform's rests before its problem stays: a platform down for
 * minutes fails it. Counted in time, not in rests: while one run probes a platform that failed,
 * its reader sends every other run away for a second, and a job's hundred runs would count a rest
 * a second each.
 */
const MOST_REST_S = 120;

/**
 * The run of `data` again when its platform may be asked again, where the reader said when (a
 * platform that failed rests, and says so with Retry-After): the queue's own retries come seconds
 * apart, and would spend themselves inside one rest, failing every item of a job that met it (81
 * of 100 X items, when one answer came late on a busy machine). Null where it cannot.
 */
export function afterRest<Data extends Resting>(data: Data, error: ApiError): Again<Data> | null {
  const restS = Number(error.headers["retry-after"]);
  const restedS = data.restedS ?? 0;
  if (!(restS > 0) || restedS >= MOST_REST_S) return null;
  return { againInS: restS, data: { ...data, restedS: restedS + restS } };
}
