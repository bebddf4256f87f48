// Webhook endpoints, the messages made for them and each attempt to deliver one. Queries return
// what they found; the callers choose the status. An endpoint is its account's alone: every query
// that names one by id names the account too, so another account's id finds nothing.
import type { Queryable } from "../store/db.ts";

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
}

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  created_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
}

const ENDPOINT_COLUMNS = "id, url, events, created_at, disabled_at, disabled_reason, failing_since";

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  events: row.events,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  failingSince: row.failing_since,
});

/** The new endpoint; null when the account holds `max` already (checked in the same statement, so two requests cannot both pass). */
export async function createEndpoint(
  db: Queryable,
  endpoint: { accountId: number; url: string; events: readonly string[]; secret: string; max: number },
): Promise<WebhookEndpoint | null> {
  const rows = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (account_id, url, events, secret)
     SELECT $1, $2, $3, $4
     WHERE (SELECT count(*) FROM webhook_endpoints WHERE account_id = $1) < $5
     RETURNING ${ENDPOINT_COLUMNS}`,
    [endpoint.accountId, endpoint.url, endpoint.events, endpoint.secret, endpoint.max],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** The account's endpoints, oldest first. */
export async function endpointsOf(db: Queryable, accountId: number): Promise<WebhookEndpoint[]> {
  const rows = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(toEndpoint);
}

/** The account's endpoint of that id, or null (none, or another account's). */
export async function endpointOf(db: Queryable, id: string, accountId: number): Promise<WebhookEndpoint | null> {
  const rows = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** Whether the account had that endpoint (its messages and attempts go with it). */
export async function deleteEndpoint(db: Queryable, id: string, accountId: number): Promise<boolean> {
  const rows = await db.query("DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2 RETURNING id", [
    id,
    accountId,
  ]);
  return rows.length > 0;
}

/**
 * Gives the endpoint a new secret; the one it had signs beside it until `previousUntil`. A
 * disabled endpoint is enabled again: rotating is what an owner does after mending a receiver.
 */
export async function rotateSecret(
  db: Queryable,
  rotation: { id: string; accountId: number; secret: string; previousUntil: Date },
): Promise<WebhookEndpoint | null> {
  const rows = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints
     SET previous_secret = secret, previous_secret_until = $4, secret = $3,
         disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
     WHERE id = $1 AND account_id = $2
     RETURNING ${ENDPOINT_COLUMNS}`,
    [rotation.id, rotation.accountId, rotation.secret, rotation.previousUntil],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** The secrets that sign a delivery now: the endpoint's own, then the previous one while it is still valid. */
export async function signingSecrets(db: Queryable, endpointId: string, now: Date): Promise<string[]> {
  const [row] = await db.query<{ secret: string; previous_secret: string | null; previous_secret_until: Date | null }>(
    "SELECT secret, previous_secret, previous_secret_until FROM webhook_endpoints WHERE id = $1",
    [endpointId],
  );
  if (!row) return [];
  const previousValid = row.previous_secret !== null && row.previous_secret_until !== null &&
    row.previous_secret_until > now;
  return previousValid ? [row.secret, row.previous_secret!] : [row.secret];
}

/**
 * One message per endpoint that takes this event: the account's enabled endpoints subscribed to
 * its type, or of those only the one a job named. The ids made.
 */
export async function createMessages(
  db: Queryable,
  event: { accountId: number; type: string; body: string; endpointId: string | null; ids: () => string },
): Promise<string[]> {
  const endpoints = await db.query<{ id: string }>(
    `SELECT id FROM webhook_endpoints
     WHERE account_id = $1 AND disabled_at IS NULL AND $2 = ANY (events) AND ($3::uuid IS NULL OR id = $3)`,
    [event.accountId, event.type, event.endpointId],
  );
  const made: string[] = [];
  for (const endpoint of endpoints) {
    const id = event.ids();
    await db.query("INSERT INTO webhook_messages (id, endpoint_id, type, body) VALUES ($1, $2, $3, $4)", [
      id,
      endpoint.id,
      event.type,
      event.body,
    ]);
    made.push(id);
  }
  return made;
}

/** What an attempt to deliver a message needs; null when the message (or its endpoint) is gone. */
export interface MessageToSend {
  id: string;
  body: string;
  endpointId: string;
  url: string;
  disabled: boolean;
  delivered: boolean;
  failingSince: Date | null;
}

export async function messageToSend(db: Queryable, id: string): Promise<MessageToSend | null> {
  const [row] = await db.query<{
    id: string;
    body: string;
    endpoint_id: string;
    url: string;
    disabled_at: Date | null;
    delivered_at: Date | null;
    given_up_at: Date | null;
    failing_since: Date | null;
  }>(
    `SELECT m.id, m.body, m.endpoint_id, e.url, e.disabled_at, m.delivered_at, m.given_up_at, e.failing_since
     FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id WHERE m.id = $1`,
    [id],
  );
  if (!row) return null;
  return {
    id: row.id,
    body: row.body,
    endpointId: row.endpoint_id,
    url: row.url,
    disabled: row.disabled_at !== null,
    delivered: row.delivered_at !== null || row.given_up_at !== null,
    failingSince: row.failing_since,
  };
}

/** An attempt's outcome, for the owner's page. */
export interface Attempt {
  messageId: string;
  at: Date;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** Records an attempt, and what it means for the message and its endpoint, in one transaction's worth of statements. */
export async function recordAttempt(
  db: Queryable,
  attempt: Attempt & { endpointId: string; outcome: "delivered" | "failed" | "given_up" | "gone" },
): Promise<void> {
  await db.query(
    "INSERT INTO webhook_attempts (message_id, attempted_at, status, latency_ms, error) VALUES ($1, $2, $3, $4, $5)",
    [attempt.messageId, attempt.at, attempt.status, attempt.latencyMs, attempt.error],
  );
  if (attempt.outcome === "delivered") {
    await db.query("UPDATE webhook_messages SET delivered_at = $2 WHERE id = $1", [attempt.messageId, attempt.at]);
    await db.query("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1", [attempt.endpointId]);
    return;
  }
  await db.query("UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1", [
    attempt.endpointId,
    attempt.at,
  ]);
  if (attempt.outcome !== "failed") {
    await db.query("UPDATE webhook_messages SET given_up_at = $2 WHERE id = $1", [attempt.messageId, attempt.at]);
  }
}

/** Stops deliveries to the endpoint until its owner rotates its secret (or registers it anew), saying why. */
export async function disableEndpoint(db: Queryable, id: string, reason: string, at: Date): Promise<void> {
  await db.query(
    "UPDATE webhook_endpoints SET disabled_at = $3, disabled_reason = $2 WHERE id = $1 AND disabled_at IS NULL",
    [id, reason, at],
  );
}

/** The endpoint's latest attempts, newest first, with each one's event type. */
/** An attempt as the owner's page lists it: its event, and the job and the watch the event was about. */
export interface AttemptShown extends Attempt {
  type: string;
  jobId: string | null;
  watchId: string | null;
}

export async function recentAttempts(db: Queryable, endpointId: string, limit: number): Promise<AttemptShown[]> {
  const rows = await db.query<{
    message_id: string;
    type: string;
    attempted_at: Date;
    status: number | null;
    latency_ms: number;
    error: string | null;
    job_id: string | null;
    watch_id: string | null;
  }>(
    // The event's data names its subject: a job's end is the job itself, the others carry `job` (and `watch`).
    `SELECT a.message_id, m.type, a.attempted_at, a.status, a.latency_ms, a.error,
            coalesce(m.body::jsonb #>> '{data,job,id}', m.body::jsonb #>> '{data,id}') AS job_id,
            m.body::jsonb #>> '{data,watch,id}' AS watch_id
     FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
     WHERE m.endpoint_id = $1 ORDER BY a.attempted_at DESC, a.id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((row) => ({
    messageId: row.message_id,
    type: row.type,
    at: row.attempted_at,
    status: row.status,
    latencyMs: row.latency_ms,
    error: row.error,
    jobId: row.job_id,
    watchId: row.watch_id,
  }));
}

/** Opens the account's message for another round of attempts (its owner asked to resend it); false when it is none of theirs or its endpoint is disabled. */
export async function reopenMessage(db: Queryable, messageId: string, accountId: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhook_messages m SET delivered_at = NULL, given_up_at = NULL
     FROM webhook_endpoints e
     WHERE m.id = $1 AND e.id = m.endpoint_id AND e.account_id = $2 AND e.disabled_at IS NULL
     RETURNING m.id`,
    [messageId, accountId],
  );
  return rows.length > 0;
}
