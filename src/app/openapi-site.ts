// The paths of the OpenAPI document outside the keyed API: the probes, the operator's metrics and
// platform status, the reference page and the document itself. None takes an API key; /metrics and
// /platformz take the operator's METRICS_TOKEN when one is set, and answer only this machine when
// not.
import { problemResponses, requestIdHeader, type Responses, withoutBodies } from "../http/openapi-parts.ts";

type Json = Record<string, unknown>;

const open = [] as const;
/** No token (from this machine only), or the operator's METRICS_TOKEN when one is set. */
const operatorOnly = [{}, { metricsToken: [] }];
const noStore = { "Cache-Control": { description: "`no-store`", schema: { type: "string" } } };

export const siteSchemas: Record<string, Json> = {
  Health: {
    type: "object",
    required: ["status"],
    properties: { status: { enum: ["ok", "unavailable"], description: "`ok` while the process and its store answer" } },
  },
  Readiness: {
    type: "object",
    required: ["status", "checks"],
    properties: {
      status: { enum: ["ready", "unavailable"] },
      checks: {
        type: "object",
        description: "Each check by name (store, yt-dlp, gallery-dl, ffmpeg, the extraction host, cookies)",
        additionalProperties: {
          type: "object",
          required: ["ok"],
          properties: {
            ok: { type: "boolean" },
            error: { type: "string" },
            warning: { type: "string" },
            detail: { type: "string" },
          },
        },
      },
    },
  },
  PlatformStatus: {
    type: "object",
    required: ["failing", "platforms"],
    properties: {
      failing: { type: "array", items: { type: "string" }, description: "Sites whose latest result is not ok" },
      platforms: {
        type: "array",
        items: {
          type: "object",
          required: ["site", "status"],
          properties: {
            site: { type: "string" },
            url: { type: ["string", "null"] },
            status: { type: "string" },
            detail: { type: "string" },
            remedy: { type: ["string", "null"] },
          },
        },
      },
    },
  },
  OpenApiDocument: {
    type: "object",
    required: ["openapi", "info", "paths", "components"],
    properties: {
      openapi: { type: "string" },
      info: { type: "object" },
      paths: { type: "object" },
      components: { type: "object" },
    },
  },
};

function jsonAnswer(schema: string, description: string) {
  return {
    description,
    headers: { ...requestIdHeader, ...noStore },
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
  };
}

function textAnswer(mediaType: string, description: string) {
  return { description, headers: requestIdHeader, content: { [mediaType]: { schema: { type: "string" } } } };
}

/** A GET path and its HEAD twin. */
function sitePath(operationId: string, summary: string, security: readonly unknown[], responses: Responses) {
  const head = `head${operationId[0]!.toUpperCase()}${operationId.slice(1)}`;
  return {
    get: { operationId, summary, security, responses },
    head: { operationId: head, summary: `${summary} (headers only)`, security, responses: withoutBodies(responses) },
  };
}

export function sitePaths(): Record<string, Json> {
  const tokenRefused = problemResponses(["invalid_metrics_token"]);
  return {
    "/healthz": sitePath("getHealth", "Liveness: the process and its store answer", open, {
      200: jsonAnswer("Health", "Alive"),
      503: jsonAnswer("Health", "The store does not answer"),
    }),
    "/readyz": sitePath("getReadiness", "Readiness: every check passes (the store, the media tools)", open, {
      200: jsonAnswer("Readiness", "Ready; a check may carry a warning for the operator"),
      503: jsonAnswer("Readiness", "A check fails; its `error` says which and why"),
    }),
    "/metrics": sitePath("getMetrics", "Prometheus metrics", operatorOnly, {
      200: textAnswer("text/plain", "The Prometheus text format, version 0.0.4"),
      ...tokenRefused,
    }),
    "/platformz": sitePath(
      "getPlatformStatus",
      "The platform check's latest picture, each site with its remedy",
      operatorOnly,
      {
        200: jsonAnswer("PlatformStatus", "The latest result of every site"),
        ...tokenRefused,
      },
    ),
    "/docs": sitePath("getReference", "This document as a page to read", open, {
      200: textAnswer("text/html", "The API reference"),
    }),
    "/api/v1/openapi.json": sitePath(
      "getOpenApiDocument",
      "This document (served without a key and not counted)",
      open,
      {
        200: jsonAnswer("OpenApiDocument", "The OpenAPI document"),
      },
    ),
  };
}
