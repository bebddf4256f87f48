// The OpenAPI 3.1 description of the API, built from the zod schemas that shape the records and
// the query parameters, so the document cannot drift from what the code sends. Served as
// /api/v1/openapi.json and rendered as /docs.
import { z } from "zod";
import { UsageRecord } from "../limits/usage.ts";
import { jobPaths, jobSchemas } from "./openapi-jobs.ts";
import { webhookPaths, webhookSchemas } from "./openapi-webhooks.ts";
import { watchPaths, watchSchemas } from "./openapi-watches.ts";
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
import {
  fileContent,
  headIdOf,
  problemResponses,
  rateLimitHeadersFor,
  requestIdHeader,
  required,
  type Responses,
  withoutBodies,
} from "./openapi-responses.ts";
import { sitePaths, siteSchemas } from "./openapi-site.ts";
import { DownloadQuery, PostQuery, TweetQuery } from "../http/query.ts";
import { platformList } from "../platforms/list.ts";
import { photoPostsText, postUrlText } from "../platforms/list-text.ts";

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

interface OperationSpec {
  path: string;
  /** The GET operation's id; its HEAD twin is `head` + this id's capitalized form. */
  operationId: string;
  summary: string;
  description: string;
  query?: z.ZodObject;
  success: Responses;
  /** The codes of the error table this operation answers besides apiCodes. */
  errors: readonly ErrorCode[];
}

function jsonSuccess(schema: string, description: string) {
  return {
    200: {
      description,
      headers: { ...rateLimitHeadersFor("admitted"), ...requestIdHeader },
      content: { "application/json": { schema: ref(schema) } },
    },
  };
}

const fileHeaders = {
  "Content-Disposition": {
    description: "`attachment` with `filename=` (ASCII fallback) and `filename*=UTF-8''...` (RFC 6266)",
    schema: { type: "string" },
  },
  "Content-Length": {
    description: "Body size in bytes; sent whenever the size is known before the first byte (always in direct mode)",
    schema: { type: "integer" },
  },
  "Accept-Ranges": {
    description: "`bytes` when the media host supports ranges (direct mode)",
    schema: { type: "string" },
  },
};
const estimatedLengthHeader = {
  "Estimated-Content-Length": {
    description:
      "Page mode: an estimate of the body size in bytes, sent when the source says the sizes of the files it remuxes (their sum; for MP3 the length at 320 kbps). For progress bars only: the body may be somewhat larger or smaller",
    schema: { type: "integer" },
  },
};

const clipHeaders = {
  "Clip-Start": {
    description:
      "With `start` or `end`: where the clip sent really starts, in seconds of the media (three decimals). A key-frame cut starts at the key frame at or before `start`; an exact cut (`cut=exact`) and sound start at `start`",
    schema: { type: "string" },
  },
  "Clip-Duration": {
    description:
      "With `start` or `end`: how long the clip sent is, in seconds (three decimals), from `Clip-Start` to `end` (or the media's end); absent when the source does not say its length and no `end` was given",
    schema: { type: "string" },
  },
};

// From the platform modules (http/ sits below platforms/, so the query schema cannot name them itself).
const postUrlDescription = postUrlText(platformList);

const operations: OperationSpec[] = [
  {
    path: "/api/v1/post",
    operationId: "getPost",
    summary: "Post record for a URL of any supported platform",
    description:
      "Returns the platform-independent record of a post or video. Every field is present; an unknown value is null and lists are always arrays. When `needsServerProcessing` is true, fetch the media with /api/v1/download in page mode, passing a variant's `formatId` as `format`. `media` lists every item of the post in the platform's order (a carousel of photos and videos, a gallery, a slideshow, several videos on one page, X's photos and videos); download one with `index`. " +
      photoPostsText(platformList) +
      " A post with no item to download and no text is never 200: 404 `no_media` when the platform showed it without media (or a page lists nothing), 502 `upstream_blocked` for a login wall, 502 `upstream_failed` when the media tool could not reach the site.",
    query: PostQuery.extend({ url: PostQuery.shape.url.describe(postUrlDescription) }),
    success: jsonSuccess("PostRecord", "The post record"),
    errors: [
      "invalid_url",
      "unsupported_platform",
      "unsupported_url",
      "not_found",
      "post_unavailable",
      "no_media",
      "too_many_extractions",
      "upstream_failed",
      "upstream_blocked",
      "source_too_large",
      "memory_exceeded",
      "tool_missing",
      "upstream_timeout",
    ],
  },
  {
    path: "/api/v1/tweet",
    operationId: "getTweet",
    summary: "Rich record of an X post, with direct media URLs",
    description:
      "For x.com and twitter.com links only. Video variants carry direct media URLs that /api/v1/download relays in direct mode. A post without video has `videoVariants: []`; an animated GIF has `isAnimatedGif: true` and its MP4 variant. These fields describe the first video; `media` lists every photo, video and GIF in order.",
    query: TweetQuery,
    success: jsonSuccess("TweetRecord", "The tweet record"),
    errors: ["invalid_url", "not_found", "post_unavailable", "upstream_failed"],
  },
  {
    path: "/api/v1/download",
    operationId: "download",
    summary: "Stream a media file",
    description:
      "Direct mode relays a file from X's media hosts under the service's file name and passes `Range` through, so downloads resume (206 with Content-Range). Page mode fetches the media of a supported platform page with yt-dlp and streams it remuxed as fragmented MP4 (or MP3 with `audio=mp3`), with `Estimated-Content-Length` when the source says the sizes. `index` picks one item of a post with several (the record's `media`), `subtitles` embeds a subtitle track, `start` and `end` send a clip (a part of the video or sound, made in page mode: a direct link becomes a remux when cut; `Clip-Start` and `Clip-Duration` say what was sent). An item of a photo post (read with gallery-dl) is relayed as the platform's media host serves it, with its own content type and extension, `Range` passed through. Nothing is stored on the service. A transfer that fails after the first byte is cut off (a chunked body without its end, or fewer bytes than Content-Length), never ended as if complete; before it, 502 `source_not_streamable` says that retrying will not help.",
    query: DownloadQuery,
    success: {
      200: {
        description: "The whole file",
        headers: {
          ...rateLimitHeadersFor("admitted"),
          ...requestIdHeader,
          ...required({ "Content-Disposition": fileHeaders["Content-Disposition"] }),
          "Content-Length": fileHeaders["Content-Length"],
          "Accept-Ranges": fileHeaders["Accept-Ranges"],
          ...estimatedLengthHeader,
          ...clipHeaders,
        },
        content: fileContent(),
      },
      206: {
        description: "The requested part of the file (direct mode, with a Range header)",
        headers: {
          ...rateLimitHeadersFor("admitted"),
          ...requestIdHeader,
          ...required(fileHeaders),
          "Content-Range": {
            description: "`bytes start-end/size` of the part sent",
            required: true,
            schema: { type: "string" },
          },
        },
        content: fileContent(),
      },
    },
    errors: [
      "invalid_url",
      "invalid_parameter",
      "unsupported_url",
      "format_not_available",
      "format_not_streamable",
      "host_not_allowed",
      "not_found",
      "post_unavailable",
      "no_media",
      "file_too_large",
      "range_not_satisfiable",
      "too_many_downloads",
      "too_many_extractions",
      "upstream_failed",
      "upstream_blocked",
      "tool_exited",
      "source_not_streamable",
      "source_too_large",
      "memory_exceeded",
      "tool_missing",
      "upstream_timeout",
    ],
  },
  {
    path: "/api/v1/usage",
    operationId: "getUsage",
    summary: "What the calling key may still do",
    description: "The key's tier, limits and what is left of them. Counted like any other request.",
    success: jsonSuccess("UsageRecord", "The key's usage"),
    errors: [],
  },
];

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

/** The GET operation and its HEAD twin: same parameters, same answers without bodies. */
function operationObject(spec: OperationSpec) {
  const responses = { ...spec.success, ...problemResponses([...apiCodes, ...spec.errors]) };
  const common = { summary: spec.summary, description: spec.description, parameters: parametersOf(spec.query) };
  return {
    get: { operationId: spec.operationId, ...common, responses },
    head: {
      operationId: headIdOf(spec.operationId),
      ...common,
      summary: `${spec.summary} (headers only)`,
      responses: withoutBodies(responses),
    },
  };
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io }) as JsonSchema;
  return rest;
}

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

function ref(name: string) {
  return { $ref: `#/components/schemas/${name}` };
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
        "The records' `downloadUrl` links are signed (`kid`, `expires`, `sig`): they call /api/v1/download without any header until they expire, counted against the key that asked for the record; a changed or expired link is 403 `link_invalid` or `link_expired`, one of a deleted key 403 `key_deleted`.",
        "Each key has a tier. Requests are counted per key over a sliding 24 h window (FREE 100, PRO 10000, GOLD 100000) and in any 60 s (FREE 10, PRO 300, GOLD 3000). Every answer to a known key (its 404 and 405 too) carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Tier (for the day; on a 429 burst_exceeded, for the 60 s window) and RateLimit with RateLimit-Policy for both windows; a 429 also carries Retry-After. A request refused with 429 is not counted.",
        "Concurrent downloads are capped per key and per server: page mode FREE 1, PRO 3, GOLD 10; direct mode FREE 2, PRO 6, GOLD 20. Past a cap the answer is 429 `too_many_downloads`, which is not counted.",
        "Every error is an RFC 9457 `application/problem+json` body whose `code` is a stable word to branch on; each operation lists the codes it answers. Records and problems may gain fields and an operation new codes in a later version: a client ignores fields it does not know and treats an unknown code by its status.",
      ].join("\n\n"),
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths: {
      ...Object.fromEntries(operations.map((spec) => [spec.path, operationObject(spec)])),
      ...jobPaths(apiCodes),
      ...webhookPaths(apiCodes),
      ...watchPaths(apiCodes),
      ...sitePaths(),
    },
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
