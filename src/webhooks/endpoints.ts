// Registering and rotating an owner's webhook endpoints, the same for the API and the owner's
// page: the URL checked against the egress policy, a few per account, the secret made here and
// shown once by the caller.
import { ApiError } from "../http/problem.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { Queryable } from "../store/db.ts";
import { createEndpoint, endpointOf, rotateSecret, type WebhookEndpoint } from "./store.ts";
import { checkEndpointUrl } from "./endpoint-url.ts";
import { newEndpointSecret } from "./signature.ts";
import type { EventType } from "./types.ts";

/** "A few per account": enough for a receiver per app, few enough that one event never fans out widely. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
/** After a rotation the old secret keeps signing beside the new one this long, so a receiver can switch over. */
const PREVIOUS_SECRET_MS = 24 * 3600_000;

export const noSuchEndpoint = () =>
  new ApiError("webhook_not_found", "This account has no webhook endpoint with this id.");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An endpoint id as the caller wrote it; one of no id's form is no endpoint (404), not a store error. */
export function endpointIdOf(text: string): string {
  const id = text.toLowerCase();
  if (!UUID.test(id)) throw noSuchEndpoint();
  return id;
}

/** The new endpoint and its secret; 400 for a URL that cannot be a receiver, 409 when the account has its most. */
export async function registerEndpoint(
  db: Queryable,
  targets: EgressPolicy,
  wanted: { accountId: number; url: string; events: readonly EventType[] },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await checkEndpointUrl(wanted.url, targets);
  const secret = newEndpointSecret();
  const endpoint = await createEndpoint(db, { ...wanted, url: url.href, secret, max: MAX_ENDPOINTS_PER_ACCOUNT });
  if (endpoint === null) {
    throw new ApiError(
      "webhooks_full",
      `This account has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most it may; delete one first.`,
    );
  }
  return { endpoint, secret };
}

/** A new secret for the account's endpoint (enabling it again); the old one signs beside it for 24 hours. 404 for none. */
export async function rotateEndpoint(
  db: Queryable,
  target: { id: string; accountId: number; now: Date },
): Promise<{ endpoint: WebhookEndpoint; secret: string; previousUntil: Date }> {
  const secret = newEndpointSecret();
  const previousUntil = new Date(target.now.getTime() + PREVIOUS_SECRET_MS);
  const endpoint = await rotateSecret(db, { ...target, id: endpointIdOf(target.id), secret, previousUntil });
  if (endpoint === null) throw noSuchEndpoint();
  return { endpoint, secret, previousUntil };
}

/** The endpoint a job names, when it is the account's; 400 otherwise, since the job's body is what is wrong. */
export async function requireJobEndpoint(db: Queryable, id: string, accountId: number): Promise<string> {
  const endpoint = UUID.test(id.toLowerCase()) ? await endpointOf(db, id.toLowerCase(), accountId) : null;
  if (endpoint === null) {
    throw new ApiError(
      "invalid_request",
      "`webhook` names no webhook endpoint of this account (GET /api/v1/webhooks lists them).",
    );
  }
  return endpoint.id;
}
