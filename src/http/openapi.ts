// The OpenAPI 3.1 description of the API, built from the zod schemas that shape the records and
// the query parameters, so the document cannot drift from what the code sends. Served as
// /api/v1/openapi.json and rendered as /docs.
import { z } from "zod";
import { UsageRecord } from "../limits/usage.ts";
import { PostMediaItem, PostRecord, PostSubtitle, PostVideoVariant, TweetMediaItem, TweetRecord, TweetVideoVariant } from "../platforms/records.ts";
import type { ErrorCode } from "./errors.ts";
import { DownloadQuery, PostQuery, TweetQuery } from "./query.ts";

export const API_VERSION = "1.0.0";

export type JsonSchema = Record<string, unknown>;

export const ProblemSchema = z.object({
  type: z.string().describe("Always `about:blank`: the status and `code` say what happened"),
  title: z.string().describe("The HTTP status text"),
  status: z.number().int(),
  detail: z.string().describe("What went wrong and what the caller can change"),
  code: z.string().describe("Stable snake_case word to branch on; new codes may be added, so treat an unknown one by its status"),
});

/** The codes each status carries, by operation. Add a code here when an operation gains one. */
const keyErrors: Record<number, readonly ErrorCode[]> = {
  401: ["missing_api_key", "invalid_api_key"],
  403: ["key_passive", "key_expired"],
  429: ["quota_exceeded", "burst_exceeded"],
  500: ["internal_error"],
  503: ["store_unavailable"],
};

interface OperationSpec {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  query?: z.ZodObject;
  success: Record<string, unknown>;
  errors: Record<number, readonly ErrorCode[]>;
}

const rateLimitHeaders = {
  "X-RateLimit-Limit": { description: "Requests per 24 h for the key's tier", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current 24 h window", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Tier": { description: "Tier of the key", schema: { type: "string", enum: ["FREE", "PRO", "GOLD"] } },
};
const requestIdHeader = {
  "X-Request-Id": { description: "The request's id: the caller's own X-Request-Id when it sent a well-formed one, else a new UUID", schema: { type: "string" } },
};
const retryAfterHeader = {
  "Retry-After": { description: "Seconds until a request can succeed", schema: { type: "integer", minimum: 1 } },
};

function jsonSuccess(schema: string, description: string) {
  return {
    200: {
      description,
      headers: required({ ...rateLimitHeaders, ...requestIdHeader }),
      content: { "application/json": { schema: ref(schema) } },
    },
  };
}

const fileHeaders = {
  "Content-Disposition": { description: "`attachment` with `filename=` (ASCII fallback) and `filename*=UTF-8''...` (RFC 6266)", schema: { type: "string" } },
  "Content-Length": { description: "Body size in bytes; sent whenever the size is known before the first byte (always in direct mode)", schema: { type: "integer" } },
  "Accept-Ranges": { description: "`bytes` when the media host supports ranges (direct mode)", schema: { type: "string" } },
};
const estimatedLengthHeader = {
  "Estimated-Content-Length": {
    description:
      "Page mode: an estimate of the body size in bytes, sent when the source says the sizes of the files it remuxes (their sum; for MP3 the length at 320 kbps). For progress bars only: the body may be somewhat larger or smaller",
    schema: { type: "integer" },
  },
};
const fileContent = {
  "*/*": {
    schema: { type: "string", contentMediaType: "application/octet-stream" },
    example: "(file bytes: video/mp4, audio/mpeg, image/jpeg, ...)",
  },
};

const operations: OperationSpec[] = [
  {
    path: "/api/v1/post",
    operationId: "getPost",
    summary: "Post record for a URL of any supported platform",
    description:
      "Returns the platform-independent record of a post or video. Every field is present; an unknown value is null and lists are always arrays. When `needsServerProcessing` is true, fetch the media with /api/v1/download in page mode, passing a variant's `formatId` as `format`. `media` lists every item of the post in the platform's order (a carousel of photos and videos, a gallery, a slideshow, several videos on one page, X's photos and videos); download one with `index`. Photo posts are read with gallery-dl: their items carry the file's `url`, width and height.",
    query: PostQuery,
    success: jsonSuccess("PostRecord", "The post record"),
    errors: {
      400: ["invalid_url", "unsupported_platform", "unsupported_url"],
      404: ["not_found", "post_unavailable"],
      429: ["too_many_extractions"],
      502: ["upstream_failed", "upstream_blocked"],
      503: ["tool_missing"],
      504: ["upstream_timeout"],
    },
  },
  {
    path: "/api/v1/tweet",
    operationId: "getTweet",
    summary: "Rich record of an X post, with direct media URLs",
    description:
      "For x.com and twitter.com links only. Video variants carry direct media URLs that /api/v1/download relays in direct mode. A post without video has `videoVariants: []`; an animated GIF has `isAnimatedGif: true` and its MP4 variant. These fields describe the first video; `media` lists every photo, video and GIF in order.",
    query: TweetQuery,
    success: jsonSuccess("TweetRecord", "The tweet record"),
    errors: {
      400: ["invalid_url"],
      404: ["not_found", "post_unavailable"],
      502: ["upstream_failed"],
    },
  },
  {
    path: "/api/v1/download",
    operationId: "download",
    summary: "Stream a media file",
    description:
      "Direct mode relays a file from X's media hosts under the service's file name and passes `Range` through, so downloads resume (206 with Content-Range). Page mode fetches the media of a supported platform page with yt-dlp and streams it remuxed as fragmented MP4 (or MP3 with `audio=mp3`), with `Estimated-Content-Length` when the source says the sizes. `index` picks one item of a post with several (the record's `media`), `subtitles` embeds a subtitle track. An item of a photo post (read with gallery-dl) is relayed as the platform's media host serves it, with its own content type and extension, `Range` passed through. Nothing is stored on the service. A transfer that fails after the first byte is cut off (a chunked body without its end, or fewer bytes than Content-Length), never ended as if complete; before it, 502 `source_not_streamable` says that retrying will not help.",
    query: DownloadQuery,
    success: {
      200: {
        description: "The whole file",
        headers: { ...required({ ...rateLimitHeaders, ...requestIdHeader, "Content-Disposition": fileHeaders["Content-Disposition"] }), "Content-Length": fileHeaders["Content-Length"], "Accept-Ranges": fileHeaders["Accept-Ranges"], ...estimatedLengthHeader },
        content: fileContent,
      },
      206: {
        description: "The requested part of the file (direct mode, with a Range header)",
        headers: {
          ...required({ ...rateLimitHeaders, ...requestIdHeader, ...fileHeaders }),
          "Content-Range": { description: "`bytes start-end/size` of the part sent", required: true, schema: { type: "string" } },
        },
        content: fileContent,
      },
    },
    errors: {
      400: ["invalid_url", "invalid_parameter", "unsupported_url", "format_not_available", "format_not_streamable"],
      403: ["host_not_allowed"],
      404: ["not_found", "post_unavailable", "no_media"],
      413: ["file_too_large"],
      416: ["range_not_satisfiable"],
      429: ["too_many_downloads", "too_many_extractions"],
      502: ["upstream_failed", "upstream_blocked", "source_not_streamable"],
      503: ["tool_missing"],
      504: ["upstream_timeout", "no_progress"],
    },
  },
  {
    path: "/api/v1/usage",
    operationId: "getUsage",
    summary: "What the calling key may still do",
    description: "The key's tier, limits and what is left of them. Counted like any other request.",
    success: jsonSuccess("UsageRecord", "The key's usage"),
    errors: {},
  },
];

const statusText: Record<number, string> = {
  400: "A parameter is missing or malformed",
  401: "The API key is missing or not known",
  403: "The key is passive or expired, or the URL's host is not allowed",
  404: "The post or file does not exist, or is not public",
  413: "The file is larger than this server relays",
  416: "The Range asks for bytes beyond the end of the file",
  429: "A limit is reached: the daily quota, the burst allowance or the concurrent downloads; Retry-After says when to try again",
  500: "The server failed; try again later",
  502: "The upstream platform failed; try again later",
  503: "This server cannot serve the request right now: its database cannot be reached (Retry-After says when to try again), or yt-dlp, gallery-dl or ffmpeg is missing",
  504: "The upstream platform did not answer in time",
};

function errorResponse(status: number, codes: readonly string[]) {
  const headers: Record<string, unknown> =
    status === 401
      ? { "WWW-Authenticate": { description: "`Bearer` challenge", required: true, schema: { type: "string" } }, ...requestIdHeader }
      : { ...rateLimitHeaders, ...requestIdHeader };
  if (status === 429) Object.assign(headers, required(retryAfterHeader));
  if (status === 502 || status === 503) Object.assign(headers, retryAfterHeader);
  return {
    description: `${statusText[status] ?? "Error"}. Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
    headers,
    content: {
      "application/problem+json": {
        schema: {
          allOf: [
            ref("Problem"),
            { type: "object", properties: { status: { const: status }, code: { type: "string", examples: [...codes] } } },
          ],
        },
      },
    },
  };
}

/** Every code a response with this status may carry for the operation. */
function errorsOf(spec: OperationSpec): Map<number, string[]> {
  const merged = new Map<number, string[]>();
  for (const [status, codes] of [...Object.entries(keyErrors), ...Object.entries(spec.errors)]) {
    merged.set(Number(status), [...(merged.get(Number(status)) ?? []), ...codes]);
  }
  return new Map([...merged].sort(([a], [b]) => a - b));
}

function parametersOf(query: z.ZodObject | undefined): unknown[] {
  if (!query) return [];
  // What a caller sends, before the schema turns `url` into a URL.
  const schema = toJsonSchema(query, "input");
  const properties = schema.properties as Record<string, JsonSchema>;
  const requiredNames = new Set(schema.required as string[]);
  return Object.entries(properties).map(([name, { description, ...rest }]) => ({
    name,
    in: "query",
    required: requiredNames.has(name),
    description,
    schema: rest,
  }));
}

function operationObject(spec: OperationSpec) {
  const errorResponses = Object.fromEntries([...errorsOf(spec)].map(([status, codes]) => [status, errorResponse(status, codes)]));
  return {
    get: {
      operationId: spec.operationId,
      summary: spec.summary,
      description: spec.description,
      parameters: parametersOf(spec.query),
      responses: { ...spec.success, ...errorResponses },
    },
  };
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io }) as JsonSchema;
  return rest;
}

function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  const named = { PostRecord, PostMediaItem, PostVideoVariant, PostSubtitle, TweetRecord, TweetMediaItem, TweetVideoVariant, UsageRecord, Problem: ProblemSchema };
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...rest }]) => [id, rest as JsonSchema]),
  );
}

function ref(name: string) {
  return { $ref: `#/components/schemas/${name}` };
}

function required<T extends Record<string, object>>(headers: T): T {
  return Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { ...header, required: true }])) as T;
}

/** The whole OpenAPI 3.1 document. */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Media API",
      version: API_VERSION,
      summary: "Post metadata and media downloads for X and other platforms",
      description: [
        "Every /api/v1 operation takes `Authorization: Bearer <key>`. Keys look like `xva_` plus 43 base64url characters; create one at /profile/api-keys.",
        "Each key has a tier. Requests are counted per key over a sliding 24 h window (FREE 100, PRO 10000, GOLD 100000) and in any 60 s (FREE 10, PRO 300, GOLD 3000). Every authenticated response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Tier; a 429 also carries Retry-After. A request refused with 429 is not counted.",
        "Concurrent downloads are capped per key and per server: page mode FREE 1, PRO 3, GOLD 10; direct mode FREE 2, PRO 6, GOLD 20. Past a cap the answer is 429 `too_many_downloads`, which is not counted.",
        "Every error is an RFC 9457 `application/problem+json` body whose `code` is a stable word to branch on.",
      ].join("\n\n"),
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths: {
      ...Object.fromEntries(operations.map((spec) => [spec.path, operationObject(spec)])),
      "/api/v1/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          description: "Served without authentication and not counted.",
          security: [],
          responses: { 200: { description: "The OpenAPI document", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "xva_<43 base64url characters>", description: "An API key of the service" },
      },
    },
  };
}
