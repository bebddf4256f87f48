// The OpenAPI 3.1 description of the API, built from the zod schemas that shape the records and
// the query parameters, so the document cannot drift from what the code sends. Served as
// /api/v1/openapi.json and rendered as /docs.
import { z } from "zod";
import { UsageRecord } from "../limits/usage.ts";
import { jobSchemas } from "../jobs/routes.ts";
import { webhookSchemas } from "../webhooks/routes.ts";
import { watchSchemas } from "../watches/routes.ts";
import { pathsOf } from "../http/route.ts";
import { type ApiRoute, apiRoutes } from "./routes.ts";
import {
  LinkedPostMediaItem,
  LinkedPostRecord,
  LinkedPostVideoVariant,
  LinkedTweetMediaItem,
  LinkedTweetRecord,
  LinkedTweetVideoVariant,
  PostSubtitle,
} from "../platforms/records.ts";
import type { ErrorCode } from "../http/errors.ts";
import { sitePaths, siteSchemas } from "./openapi-site.ts";
import { JobEndedEvent, JobItemFailedEvent } from "../jobs/events.ts";
import { WatchFoundEvent } from "../watches/events.ts";
import type { EventType } from "../webhooks/types.ts";

export const API_VERSION = "1.0.0";

export type JsonSchema = Record<string, unknown>;

export const ProblemSchema = z.object({
  type: z.string().describe("Always `about:blank`: the status and `code` say what happened"),
  title: z.string().describe("The HTTP status text"),
  status: z.number().int(),
  detail: z.string().describe("What went wrong and what the caller can change"),
  code: z.string().describe(
    "Stable snake_case word to branch on; new codes may be added, so treat an unknown one by its status",
  ),
});

/** What every API operation may answer besides its own: the request's form, the key, the limits, the store. */
const apiCodes: readonly ErrorCode[] = [
  "invalid_request",
  "unknown_parameter",
  "missing_api_key",
  "invalid_api_key",
  "key_passive",
  "key_expired",
  "link_invalid",
  "link_expired",
  "key_deleted",
  "method_not_allowed",
  "quota_exceeded",
  "burst_exceeded",
  "headers_too_large",
  "internal_error",
  "store_unavailable",
];

function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  // The records as answered: with their signed links (docs/api.md, Signed links).
  const named = {
    PostRecord: LinkedPostRecord,
    PostMediaItem: LinkedPostMediaItem,
    PostVideoVariant: LinkedPostVideoVariant,
    PostSubtitle,
    TweetRecord: LinkedTweetRecord,
    TweetMediaItem: LinkedTweetMediaItem,
    TweetVideoVariant: LinkedTweetVideoVariant,
    UsageRecord,
    ...jobSchemas,
    ...webhookSchemas,
    ...watchSchemas,
    JobEndedEvent,
    JobItemFailedEvent,
    WatchFoundEvent,
    Problem: ProblemSchema,
  };
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map((
      [id, { $schema: _dialect, $id: _id, ...rest }],
    ) => [id, openToNewFields(rest as JsonSchema)]),
  );
}

/**
 * The schema without `additionalProperties: false`: records gain fields over time (docs/api.md,
 * Compatibility), and a strict validator built from this document must not reject them.
 */
function openToNewFields(schema: JsonSchema): JsonSchema {
  const open = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(open) : typeof value === "object" && value !== null
      ? Object.fromEntries(
        Object.entries(value).filter(([name, inner]) => !(name === "additionalProperties" && inner === false)).map((
          [name, inner],
        ) => [name, open(inner)]),
      )
      : value;
  return open(schema) as JsonSchema;
}

/** Each event a webhook endpoint may ask for: the schema of its `data` (a component above), and what it tells. */
const EVENTS: Record<EventType, { data: string; summary: string }> = {
  "job.completed": { data: "JobEndedEvent", summary: "A job has finished with at least one item done" },
  "job.failed": { data: "JobEndedEvent", summary: "A job has finished with no item done" },
  "job.item.failed": { data: "JobItemFailedEvent", summary: "An item of a job has failed" },
  "watch.found": { data: "WatchFoundEvent", summary: "A watch's run found new posts, and its job has finished" },
};

const deliveryHeaders = [
  ["webhook-id", "The event's id: the same on every attempt, to drop repeats by"],
  ["webhook-timestamp", "Unix seconds when this attempt was signed"],
  ["webhook-signature", "`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's secret"],
].map(([name, description]) => ({ name, in: "header", required: true, description, schema: { type: "string" } }));

/** OpenAPI 3.1 `webhooks`: the POST each event makes to an account's endpoints (Standard Webhooks), its body's types. */
function webhooks(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(EVENTS).map(([type, { data, summary }]) => [type, {
      post: {
        operationId: `event_${type.replaceAll(".", "_")}`,
        summary,
        parameters: deliveryHeaders,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["type", "timestamp", "data"],
                properties: {
                  type: { type: "string", const: type },
                  timestamp: { type: "string", description: "ISO 8601 UTC: when the event happened" },
                  data: { $ref: `#/components/schemas/${data}` },
                },
              },
            },
          },
        },
        responses: { "2XX": { description: "Taken; any other answer, or none in time, is tried again later" } },
      },
    }]),
  );
}

/** The whole OpenAPI 3.1 document, of the API's `routes` (all of them unless a test hands in its own). */
export function buildOpenApiDocument(routes: readonly ApiRoute[] = apiRoutes): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Media API",
      version: API_VERSION,
      summary: "Post metadata and media downloads for X and other platforms",
      description: [
        "Every /api/v1 operation takes `Authorization: Bearer <key>`. Keys look like `xva_` plus 43 base64url characters; create one at /profile/api-keys.",
        "The records' `downloadUrl` links are signed (`kid`, `expires`, `sig`): they call /api/v1/download without any header until they expire, counted against the key that asked for the record; a changed or expired link is 403 `link_invalid` or `link_expired`, one of a deleted key 403 `key_deleted`.",
        "Each key has a tier. Requests are counted per key over a sliding 24 h window (FREE 100, PRO 10000, GOLD 100000) and in any 60 s (FREE 10, PRO 300, GOLD 3000). Every answer to a known key (its 404 and 405 too) carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Tier (for the day; on a 429 burst_exceeded, for the 60 s window) and RateLimit with RateLimit-Policy for both windows; a 429 also carries Retry-After. A request refused with 429 is not counted.",
        "Concurrent downloads are capped per key and per server: page mode FREE 1, PRO 3, GOLD 10; direct mode FREE 2, PRO 6, GOLD 20. Past a cap the answer is 429 `too_many_downloads`, which is not counted.",
        "Every error is an RFC 9457 `application/problem+json` body whose `code` is a stable word to branch on; each operation lists the codes it answers. Records and problems may gain fields and an operation new codes in a later version: a client ignores fields it does not know and treats an unknown code by its status.",
      ].join("\n\n"),
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths: {
      ...pathsOf(routes, apiCodes),
      ...sitePaths(),
    },
    webhooks: webhooks(),
    components: {
      schemas: { ...componentSchemas(), ...siteSchemas },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "xva_<43 base64url characters>",
          description: "An API key of the service",
        },
        metricsToken: { type: "http", scheme: "bearer", description: "The operator's METRICS_TOKEN, when one is set" },
      },
    },
  };
}
