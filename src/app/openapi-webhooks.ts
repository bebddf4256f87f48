// The webhook endpoints' operations in the OpenAPI document (docs/api.md, Webhooks). Their schemas
// are the ones the handlers parse and answer with (src/handlers/webhooks.ts).
import { WebhookBody, WebhookEndpointRecord, WebhookEndpointWithSecret, WebhookList } from "../handlers/webhooks.ts";
import type { ErrorCode } from "../http/errors.ts";
import {
  jsonAnswer,
  problemResponses,
  rateLimitHeadersFor,
  requestBodySchema,
  requestIdHeader,
  withHead,
} from "./openapi-responses.ts";

type Json = Record<string, unknown>;

/** The schemas the operations name, for the document's components. */
export const webhookSchemas = {
  WebhookEndpoint: WebhookEndpointRecord,
  WebhookEndpointWithSecret,
  WebhookList,
} as const;

const idParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The endpoint's id, as POST /api/v1/webhooks answered it",
  schema: { type: "string" },
};

/** The webhook endpoints' paths, each operation with its answers and `common` codes besides its own. */
export function webhookPaths(common: readonly ErrorCode[]): Record<string, Json> {
  const problems = (own: readonly ErrorCode[]) => problemResponses([...common, ...own]);
  return {
    "/api/v1/webhooks": {
      post: {
        operationId: "createWebhook",
        summary: "Register a receiver of the account's job events, signed as Standard Webhooks signs",
        description:
          "The receiver must be on a public address (or one the operator allows with WEBHOOK_EXTRA_HOSTS); 400 `invalid_parameter` says why not. The answer holds the signing secret, shown this once.",
        requestBody: { required: true, content: { "application/json": { schema: requestBodySchema(WebhookBody) } } },
        responses: {
          ...jsonAnswer(201, "WebhookEndpointWithSecret", "The endpoint and its secret", {
            Location: { description: "/api/v1/webhooks/{id}", required: true, schema: { type: "string" } },
          }),
          ...problems(["invalid_parameter", "webhooks_full"]),
        },
      },
      ...withHead("listWebhooks", {
        summary: "The account's webhook endpoints, oldest first",
        description: "Without their secrets.",
        responses: { ...jsonAnswer(200, "WebhookList", "The account's endpoints"), ...problems([]) },
      }),
    },
    "/api/v1/webhooks/{id}": {
      ...withHead("getWebhook", {
        summary: "A webhook endpoint",
        description: "Another account's endpoint is 404.",
        parameters: [idParameter],
        responses: { ...jsonAnswer(200, "WebhookEndpoint", "The endpoint"), ...problems(["webhook_not_found"]) },
      }),
      delete: {
        operationId: "deleteWebhook",
        summary: "Delete a webhook endpoint and its undelivered events",
        parameters: [idParameter],
        responses: {
          204: { description: "Deleted", headers: { ...rateLimitHeadersFor("admitted"), ...requestIdHeader } },
          ...problems(["webhook_not_found"]),
        },
      },
    },
    "/api/v1/webhooks/{id}/rotate": {
      post: {
        operationId: "rotateWebhookSecret",
        summary: "A new signing secret; the old one signs beside it for 24 hours",
        description: "A disabled endpoint is enabled again. The new secret is shown this once.",
        parameters: [idParameter],
        responses: {
          ...jsonAnswer(200, "WebhookEndpointWithSecret", "The endpoint and its new secret"),
          ...problems(["webhook_not_found"]),
        },
      },
    },
  };
}
