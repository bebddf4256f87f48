// Delivering an event: one message per endpoint that takes it, each sent by the shared queue, so a
// delivery survives a restart and the death of the instance that made it, and one instance sends
// each attempt. An attempt POSTs the message's body, signed, and counts only a 2xx as delivered:
// the status line decides, and the receiver's body is never read (a large or slow one is no
// failure); redirects are not followed. A failed attempt queues the next one after the schedule's wait
// (WEBHOOK_RETRY_SCHEDULE); 410 Gone disables the endpoint, and so does failing for days.
import type { Logger } from "../log.ts";
import type { Outbound } from "../net/outbound.ts";
import type { Queryable } from "../store/db.ts";
import {
  createMessages,
  disableEndpoint,
  type MessageToSend,
  messageToSend,
  recordAttempt,
  reopenMessage,
  signingSecrets,
} from "./store.ts";
import { newMessageId, signedHeaders } from "./signature.ts";
import { eventBody, type EventType } from "./types.ts";

export const DELIVERY_QUEUE = "webhook-deliveries";
/** How long a receiver has to answer with its status line. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** An endpoint that has failed every attempt for this long is disabled; its owner's page says so. */
const FAILING_DAYS = 5;

/** What the queue is asked: put these deliveries on it, each to start after its wait. */
export type SendDeliveries = (
  deliveries: readonly { messageId: string; attempt: number; startAfterS: number }[],
  tx?: Queryable,
) => Promise<void>;

export interface DeliveryDeps {
  db: Queryable;
  send: SendDeliveries;
  /** Makes the deliveries' queue, before a transaction sends to it. */
  prepare(): Promise<void>;
  /** Seconds to wait before each attempt, the first included. */
  schedule: readonly number[];
  /**
   * The client to receivers: each connection checked by the egress policy of WEBHOOK_EXTRA_HOSTS
   * (public addresses, and those the operator allows) and pinned to the address it checked.
   */
  receivers: Outbound;
  now: () => Date;
  log: Logger;
}

/** An event for the account's endpoints (or the one a job named): a message for each, and its first attempt queued, inside `tx` when given. */
export async function publishEvent(
  deps: DeliveryDeps,
  event: { accountId: number; type: EventType; data: unknown; endpointId: string | null },
  tx: Queryable = deps.db,
): Promise<number> {
  const body = eventBody(event.type, deps.now(), event.data);
  const ids = await createMessages(tx, { ...event, body, ids: newMessageId });
  await deps.send(ids.map((messageId) => ({ messageId, attempt: 0, startAfterS: deps.schedule[0] ?? 0 })), tx);
  return ids.length;
}

type Outcome = { status: number | null; error: string | null };

/** One POST of the message, signed now; its receiver's status, or why none came. */
async function post(deps: DeliveryDeps, message: MessageToSend, at: Date): Promise<Outcome> {
  try {
    const secrets = await signingSecrets(deps.db, message.endpointId, at);
    const headers = await signedHeaders(secrets, {
      id: message.id,
      timestampS: Math.floor(at.getTime() / 1000),
      body: message.body,
    });
    const answer = await deps.receivers.text({
      url: new URL(message.url),
      method: "POST",
      headers: { ...headers, "user-agent": "media-api-webhooks" },
      body: message.body,
      redirect: "manual",
      // Nothing a receiver says past its status is used: its body is left unread, and its connection ended.
      read: "none",
      maxBytes: 0,
    });
    const redirected = answer.status >= 300 && answer.status < 400;
    return { status: answer.status, error: redirected ? "redirect not followed" : null };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return { status: null, error: error instanceof Error ? `${error.message}${cause}` : String(error) };
  }
}

/** The next step after an attempt that did not deliver: another attempt, or giving up (and perhaps the endpoint). */
function failedOutcome(deps: DeliveryDeps, message: MessageToSend, attempt: number, status: number | null, at: Date) {
  if (status === 410) return { outcome: "gone" as const, disable: "the receiver answered 410 Gone" };
  const failingSince = message.failingSince ?? at;
  const failingDays = (at.getTime() - failingSince.getTime()) / 86_400_000;
  if (failingDays >= FAILING_DAYS) {
    return { outcome: "given_up" as const, disable: `every attempt failed since ${failingSince.toISOString()}` };
  }
  return attempt + 1 < deps.schedule.length ? { outcome: "failed" as const } : { outcome: "given_up" as const };
}

/** One attempt of a queued delivery; the next is queued when this one fails and the schedule goes on. */
export async function attemptDelivery(deps: DeliveryDeps, job: { messageId: string; attempt: number }): Promise<void> {
  const message = await messageToSend(deps.db, job.messageId);
  if (message === null || message.delivered || message.disabled) return;
  const at = deps.now();
  const started = performance.now();
  const { status, error } = await post(deps, message, at);
  const latencyMs = Math.round(performance.now() - started);
  const delivered = status !== null && status >= 200 && status < 300;
  const next = delivered ? { outcome: "delivered" as const } : failedOutcome(deps, message, job.attempt, status, at);
  await recordAttempt(deps.db, {
    messageId: message.id,
    endpointId: message.endpointId,
    at,
    status,
    latencyMs,
    error,
    outcome: next.outcome,
  });
  if ("disable" in next && next.disable) await disableEndpoint(deps.db, message.endpointId, next.disable, at);
  if (next.outcome === "failed") {
    await deps.send([{
      messageId: message.id,
      attempt: job.attempt + 1,
      startAfterS: deps.schedule[job.attempt + 1]!,
    }]);
  }
  deps.log.info("webhook attempt", {
    messageId: message.id,
    attempt: job.attempt,
    status,
    latencyMs,
    outcome: next.outcome,
  });
}

/** Sends the account's message again, from the schedule's start, under its own webhook-id; false when there is no such message to send. */
export async function resendMessage(deps: DeliveryDeps, messageId: string, accountId: number): Promise<boolean> {
  if (!(await reopenMessage(deps.db, messageId, accountId))) return false;
  await deps.send([{ messageId, attempt: 0, startAfterS: 0 }]);
  return true;
}
