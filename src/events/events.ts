// The events' side of an instance: deliveries on the shared queue (this instance's workers take
// their turn at them) and what the job runner tells them.
import type { Queue } from "../jobs/queue.ts";
import type { JobEvents } from "../jobs/runner.ts";
import type { Logger } from "../log.ts";
import type { Outbound } from "../platforms/outbound.ts";
import type { Db } from "../store/db.ts";
import { attemptDelivery, DELIVERY_QUEUE, type DeliveryDeps } from "./delivery.ts";
import { jobEvents } from "./job-events.ts";

/** Attempts this instance makes at once: each waits on a receiver for at most 15 s. */
const DELIVERIES_AT_ONCE = 8;

export interface Events {
  deliveries: DeliveryDeps;
  jobs: JobEvents;
  /** Starts this instance's delivery workers on the queue. */
  work(): Promise<void>;
}

export function createEvents(options: {
  db: Db;
  queue: Queue;
  schedule: readonly number[];
  receivers: Outbound;
  now: () => Date;
  log: Logger;
}): Events {
  const { db, queue } = options;
  const deliveries: DeliveryDeps = {
    ...options,
    send: (items, tx) =>
      queue.send(
        DELIVERY_QUEUE,
        items.map(({ startAfterS, ...data }) => ({ data, startAfterS })),
        tx,
      ),
  };
  return {
    deliveries,
    jobs: jobEvents({ ...deliveries, db }),
    work: () =>
      queue.work<{ messageId: string; attempt: number }>({
        queue: DELIVERY_QUEUE,
        concurrency: DELIVERIES_AT_ONCE,
        run: async (job) => {
          await attemptDelivery(deliveries, job);
          return true;
        },
      }),
  };
}
