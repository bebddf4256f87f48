// This instance's workers on the queue start when there is work, not at every start: an instance
// whose store has never held a job, a watch's run or a webhook delivery runs none of the 40-odd
// workers that would each ask the store for work every poll. The rule: the workers start
//   - at the start, when any queue holds a job that waits, waits for a retry or runs;
//   - when this instance puts a job on a queue (a job, a watch, a delivery, a resend);
//   - when another instance puts a job on a queue (the store's NOTIFY, heard here at once);
//   - when a check every `everyS` finds such a job, put there by another instance (which may have
//     stopped or died since, or sent it while this one did not listen): the same bound the workers'
//     own poll gives a job whose instance stopped.
// Once started they run until the service stops.
import type { Queue } from "./queue.ts";

export interface WorkersOnDemand {
  /** The queue to hand the features: a job put on it starts the workers. */
  queue: Queue;
  /** Starts the workers with `work` now when the queue holds work, else when it comes (see above). */
  begin(work: () => Promise<void>): Promise<void>;
  /** Whether the workers have been started. */
  started(): boolean;
}

export function workersOnDemand(
  queue: Queue,
  { everyS, onError }: { everyS: number; onError: (error: Error) => void },
): WorkersOnDemand {
  let work: (() => Promise<void>) | null = null;
  let starting: Promise<void> | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  const start = (): Promise<void> => {
    if (work === null) return Promise.resolve();
    clearInterval(timer);
    // A job sent inside a transaction may have woken no worker yet (none listened): each asks once started.
    starting ??= work().then(() => queue.wakeAll());
    return starting;
  };
  const startIfPending = async () => {
    if (starting === null && await queue.pending()) await start();
  };
  return {
    queue: {
      ...queue,
      async send(name, jobs, tx) {
        await queue.send(name, jobs, tx);
        // Not awaited: inside `tx`, making the workers' queues would wait for it to end (see Queue.send).
        if (jobs.length > 0) start().catch(onError);
      },
      stop() {
        clearInterval(timer);
        return queue.stop();
      },
    },
    async begin(given) {
      work = given;
      timer = setInterval(() => startIfPending().catch(onError), everyS * 1000);
      timer.unref?.();
      // Heard after the sender's transaction committed: making the workers' queues waits for nothing.
      queue.onSent(() => {
        if (starting === null) start().catch(onError);
      });
      await startIfPending();
    },
    started: () => starting !== null,
  };
}
