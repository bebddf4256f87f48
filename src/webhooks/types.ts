// The events a webhook endpoint may ask for (docs/api.md, Webhooks), and the body every delivery
// carries: `type`, `timestamp` and `data`, as Standard Webhooks lays a payload out.

export const EVENT_TYPES = ["job.completed", "job.failed", "job.item.failed", "watch.found"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The JSON a delivery sends, exactly as it is signed: made once per event and endpoint, the same on every attempt. */
export function eventBody(type: EventType, at: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}
