// The webhook endpoints' routes (docs/api.md, Webhooks): an owner registers receivers for the
// events of their account's jobs and watches, sees them, rotates a secret and deletes one. The
// secret is shown once, when it is made. An endpoint is its account's alone: another account's id
// is 404, as an id that never was.
import { z } from "zod";
import { endpointIdOf, noSuchEndpoint, registerEndpoint, rotateEndpoint } from "./endpoints.ts";
import { EVENT_TYPES } from "./types.ts";
import type { ApiContext, ApiHandler } from "../auth/api-context.ts";
import { readJsonBody } from "../http/json-body.ts";
import { json } from "../http/json-response.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { Db } from "../store/db.ts";
import { jsonAnswer } from "../http/openapi-parts.ts";
import { idParamOf, ownedResourceRoutes } from "../http/owned-resource.ts";
import type { RouteDeclaration } from "../http/route.ts";
import { deleteEndpoint, endpointOf, endpointsOf, type WebhookEndpoint } from "./store.ts";

export interface WebhooksDeps {
  db: Db;
  /** Where a receiver may be: public addresses, and the operator's WEBHOOK_EXTRA_HOSTS. */
  webhookTargets: EgressPolicy;
}

export const WEBHOOKS_PATH = "/api/v1/webhooks";

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
const idOf = (ctx: ApiContext) => endpointIdOf(ctx.params.id ?? "");

/** POST /api/v1/webhooks: 201 with the endpoint and its secret, shown this once. */
function createWebhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    const body = await readJsonBody(ctx.request, WebhookBody, {
      maxBytes: 8 * 1024,
      example: '{"url": "https://example.com/hooks", "events": ["job.completed"]}',
    });
    const { endpoint, secret } = await registerEndpoint(deps.db, deps.webhookTargets, {
      accountId: ctx.caller.key.accountId,
      ...body,
    });
    return json({ ...endpointView(endpoint), secret }, {
      status: 201,
      headers: { location: `${WEBHOOKS_PATH}/${endpoint.id}` },
    });
  };
}

/** GET /api/v1/webhooks: the account's endpoints, oldest first. */
function listWebhooksHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => json({ webhooks: (await endpointsOf(deps.db, ctx.caller.key.accountId)).map(endpointView) });
}

/** GET /api/v1/webhooks/{id}. */
function webhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    const endpoint = await endpointOf(deps.db, idOf(ctx), ctx.caller.key.accountId);
    if (endpoint === null) throw noSuchEndpoint();
    return json(endpointView(endpoint));
  };
}

/** DELETE /api/v1/webhooks/{id}: 204; its undelivered events go with it. */
function deleteWebhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    if (!(await deleteEndpoint(deps.db, idOf(ctx), ctx.caller.key.accountId))) throw noSuchEndpoint();
    return new Response(null, { status: 204 });
  };
}

/** POST /api/v1/webhooks/{id}/rotate: a new secret, shown this once; the old one signs beside it for 24 hours. */
function rotateWebhookHandler(deps: WebhooksDeps): ApiHandler {
  return async (ctx) => {
    const rotated = await rotateEndpoint(deps.db, { id: idOf(ctx), accountId: ctx.caller.key.accountId, now: ctx.now });
    return json({
      ...endpointView(rotated.endpoint),
      secret: rotated.secret,
      previousSecretExpiresAt: rotated.previousUntil.toISOString(),
    });
  };
}

/** The schemas the routes name, for the document's components. */
export const webhookSchemas = {
  WebhookEndpoint: WebhookEndpointRecord,
  WebhookEndpointWithSecret,
  WebhookList,
} as const;

export const webhookRoutes: RouteDeclaration<WebhooksDeps, ApiHandler>[] = [
  ...ownedResourceRoutes<WebhooksDeps, ApiHandler>({
    collection: WEBHOOKS_PATH,
    thing: "endpoint",
    notFound: "webhook_not_found",
    create: {
      operationId: "createWebhook",
      summary: "Register a receiver of the account's job events, signed as Standard Webhooks signs",
      description:
        "The receiver must be on a public address (or one the operator allows with WEBHOOK_EXTRA_HOSTS); 400 `invalid_parameter` says why not. The answer holds the signing secret, shown this once.",
      body: WebhookBody,
      component: "WebhookEndpointWithSecret",
      answer: "The endpoint and its secret",
      codes: ["invalid_parameter", "webhooks_full"],
      handler: createWebhookHandler,
    },
    list: {
      operationId: "listWebhooks",
      summary: "The account's webhook endpoints, oldest first",
      description: "Without their secrets.",
      component: "WebhookList",
      answer: "The account's endpoints",
      handler: listWebhooksHandler,
    },
    get: {
      operationId: "getWebhook",
      summary: "A webhook endpoint",
      description: "Another account's endpoint is 404.",
      component: "WebhookEndpoint",
      answer: "The endpoint",
      handler: webhookHandler,
    },
    remove: {
      operationId: "deleteWebhook",
      summary: "Delete a webhook endpoint and its undelivered events",
      handler: deleteWebhookHandler,
    },
  }),
  {
    method: "POST",
    path: `${WEBHOOKS_PATH}/{id}/rotate`,
    params: idParamOf("endpoint", WEBHOOKS_PATH),
    operationId: "rotateWebhookSecret",
    summary: "A new signing secret; the old one signs beside it for 24 hours",
    description: "A disabled endpoint is enabled again. The new secret is shown this once.",
    answers: jsonAnswer(200, "WebhookEndpointWithSecret", "The endpoint and its new secret"),
    errors: ["webhook_not_found"],
    handler: rotateWebhookHandler,
  },
];
