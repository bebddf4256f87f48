// The webhook endpoints' operations in the OpenAPI document (docs/api.md, Webhooks). Their schemas
// are the ones the handlers parse and answer with (routes.ts).
import { WebhookBody, WebhookEndpointRecord, WebhookEndpointWithSecret, WebhookList } from "./routes.ts";
import type { ErrorCode } from "../http/errors.ts";
import { idParameterOf, jsonAnswer, ownedResourcePaths, problemResponses } from "../http/openapi-parts.ts";

type Json = Record<string, unknown>;

/** The schemas the operations name, for the document's components. */
export const webhookSchemas = {
  WebhookEndpoint: WebhookEndpointRecord,
  WebhookEndpointWithSecret,
  WebhookList,
} as const;

const WEBHOOKS = "/api/v1/webhooks";
const idParameter = idParameterOf("endpoint", WEBHOOKS);

/** The webhook endpoints' paths, each operation with its answers and `common` codes besides its own. */
export function webhookPaths(common: readonly ErrorCode[]): Record<string, Json> {
  return {
    ...ownedResourcePaths({
      collection: WEBHOOKS,
      idParameter,
      notFound: "webhook_not_found",
      common,
      create: {
        operationId: "createWebhook",
        summary: "Register a receiver of the account's job events, signed as Standard Webhooks signs",
        description:
          "The receiver must be on a public address (or one the operator allows with WEBHOOK_EXTRA_HOSTS); 400 `invalid_parameter` says why not. The answer holds the signing secret, shown this once.",
        body: WebhookBody,
        component: "WebhookEndpointWithSecret",
        answer: "The endpoint and its secret",
        codes: ["invalid_parameter", "webhooks_full"],
      },
      list: {
        operationId: "listWebhooks",
        summary: "The account's webhook endpoints, oldest first",
        description: "Without their secrets.",
        component: "WebhookList",
        answer: "The account's endpoints",
      },
      get: {
        operationId: "getWebhook",
        summary: "A webhook endpoint",
        description: "Another account's endpoint is 404.",
        component: "WebhookEndpoint",
        answer: "The endpoint",
      },
      remove: { operationId: "deleteWebhook", summary: "Delete a webhook endpoint and its undelivered events" },
    }),
    [`${WEBHOOKS}/{id}/rotate`]: {
      post: {
        operationId: "rotateWebhookSecret",
        summary: "A new signing secret; the old one signs beside it for 24 hours",
        description: "A disabled endpoint is enabled again. The new secret is shown this once.",
        parameters: [idParameter],
        responses: {
          ...jsonAnswer(200, "WebhookEndpointWithSecret", "The endpoint and its new secret"),
          ...problemResponses([...common, "webhook_not_found"]),
        },
      },
    },
  };
}
