// The webhook endpoints' operations (docs/api.md, Webhooks): an owner registers receivers for the
// events of their account's jobs and watches, sees them, rotates a secret and deletes one. The
// secret is shown once, when it is made. An endpoint is its account's alone: another account's id
// is 404, as an id that never was.
import { z } from "zod";
import { endpointIdOf, noSuchEndpoint, registerEndpoint, rotateEndpoint } from "./endpoints.ts";
import { EVENT_TYPES } from "./types.ts";
import type { ApiContext, ApiHandler } from "../auth/api-context.ts";
import { readJsonBody } from "../http/json-body.ts";
import { json } from "../http/json-response.ts";
import type { EgressPolicy } from "../media/egress.ts";
import type { Db } from "../store/db.ts";
import { deleteEndpoint, endpointOf, endpointsOf, type WebhookEndpoint } from "./store.ts";

export interface WebhooksDeps {
  db: Db;
  /** Where a receiver may be: public addresses, and the operator's WEBHOOK_EXTRA_HOSTS. */
  webhookTargets: EgressPolicy;
}

export const WEBHOOKS_PATH = "/api/v1/webhooks";
export const WEBHOOK_PATH = `${WEBHOOKS_PATH}/{id}`;
export const WEBHOOK_ROTATE_PATH = `${WEBHOOKS_PATH}/{id}/rotate`;

export const WebhookBody = z.strictObject({
  url: z.string().describe("The receiver: an https:// (or http://) link on a public address"),
  events: z
    .array(z.enum(EVENT_TYPES))
    .min(1, "`events` needs at least one event type.")
    .transform((events) => [...new Set(events)])
    .describe("The event types this endpoint receives"),
});

/** An endpoint as the API shows it: never its secret. The OpenAPI document shows this schema. */
export const WebhookEndpointRecord = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  createdAt: z.string().describe("ISO 8601 UTC"),
  disabledAt: z.string().nullable().describe(
    "When deliveries stopped (410 Gone, or days of failures); null while enabled",
  ),
  disabledReason: z.string().nullable(),
  failingSince: z.string().nullable().describe(
    "The first failed attempt since the last delivered one; null while delivering",
  ),
});
export const WebhookEndpointWithSecret = WebhookEndpointRecord.extend({
  secret: z.string().describe("`whsec_` and the base64 of the signing key's bytes; shown this once"),
});
export const WebhookList = z.object({ webhooks: z.array(WebhookEndpointRecord) });

export const endpointView = (endpoint: WebhookEndpoint): z.infer<typeof WebhookEndpointRecord> => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events as z.infer<typeof WebhookEndpointRecord>["events"],
  createdAt: endpoint.createdAt.toISOString(),
  disabledAt: endpoint.disabledAt?.toISOString() ?? null,
  disabledReason: endpoint.disabledReason,
  failingSince: endpoint.failingSince?.toISOString() ?? null,
});

/** The endpoint id the path names. */
const idOf = (ctx: ApiContext) => endpointIdOf(ctx.url.pathname.slice(WEBHOOKS_PATH.length + 1).split("/")[0]!);

/** POST /api/v1/webhooks: 201 with the endpoint and its secret, shown this once. */
export function createWebhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    const body = await readJsonBody(ctx.request, WebhookBody, {
      maxBytes: 8 * 1024,
      example: '{"url": "https://example.com/hooks", "events": ["job.completed"]}',
    });
    const { endpoint, secret } = await registerEndpoint(deps.db, deps.webhookTargets, {
      accountId: ctx.key.accountId,
      ...body,
    });
    return json({ ...endpointView(endpoint), secret }, {
      status: 201,
      headers: { location: `${WEBHOOKS_PATH}/${endpoint.id}` },
    });
  };
}

/** GET /api/v1/webhooks: the account's endpoints, oldest first. */
export function listWebhooksHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => json({ webhooks: (await endpointsOf(deps.db, ctx.key.accountId)).map(endpointView) });
}

/** GET /api/v1/webhooks/{id}. */
export function webhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    const endpoint = await endpointOf(deps.db, idOf(ctx), ctx.key.accountId);
    if (endpoint === null) throw noSuchEndpoint();
    return json(endpointView(endpoint));
  };
}

/** DELETE /api/v1/webhooks/{id}: 204; its undelivered events go with it. */
export function deleteWebhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    if (!(await deleteEndpoint(deps.db, idOf(ctx), ctx.key.accountId))) throw noSuchEndpoint();
    return new Response(null, { status: 204 });
  };
}

/** POST /api/v1/webhooks/{id}/rotate: a new secret, shown this once; the old one signs beside it for 24 hours. */
export function rotateWebhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    const rotated = await rotateEndpoint(deps.db, { id: idOf(ctx), accountId: ctx.key.accountId, now: ctx.now });
    return json({
      ...endpointView(rotated.endpoint),
      secret: rotated.secret,
      previousSecretExpiresAt: rotated.previousUntil.toISOString(),
    });
  };
}
