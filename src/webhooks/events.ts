// The webhooks' side of an instance: deliveries on the shared queue, which this instance's workers
// take their turn at. What a job tells them is the jobs' (jobs/events.ts).
import type { Queue } from "../queue/queue.ts";
import type { Logger } from "../log.ts";
import type { Outbound } from "../net/outbound.ts";
import type { Db } from "../store/db.ts";
import { attemptDelivery, DELIVERY_QUEUE, type DeliveryDeps } from "./delivery.ts";

/** Attempts this instance makes at once: each waits on a receiver for at most 15 s. */
const DELIVERIES_AT_ONCE = 8;

export interface Events {
  deliveries: DeliveryDeps;
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
  const { queue } = options;
  const deliveries: DeliveryDeps = {
    ...options,
    prepare: () => queue.prepare(DELIVERY_QUEUE),
    send: (items, tx) =>
      queue.send(
        DELIVERY_QUEUE,
        items.map(({ startAfterS, ...data }) => ({ data, startAfterS })),
        tx,
      ),
  };
  return {
    deliveries,
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
