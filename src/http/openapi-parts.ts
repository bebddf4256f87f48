// The response objects of the OpenAPI document: headers, problem answers whose codes come from the
// one error table (errors.ts), file bodies, the HEAD twin of a GET, and the operations every owned
// resource has alike. Pure data builders for openapi.ts.
import { z } from "zod";
import { type ErrorCode, errorTable } from "./errors.ts";

type Header = { description: string; required?: boolean; schema: Record<string, unknown> };
type Headers = Record<string, Header>;

const integer = { type: "integer" };
const text = { type: "string" };

const rateLimitHeaders: Headers = {
  "X-RateLimit-Limit": {
    description: "Requests per 24 h for the key's tier; on a 429 `burst_exceeded`, requests per 60 s",
    schema: integer,
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current 24 h window; on a 429 `burst_exceeded`, in the 60 s window (0)",
    schema: { type: "integer", minimum: 0 },
  },
  "X-RateLimit-Tier": { description: "Tier of the key", schema: { type: "string", enum: ["FREE", "PRO", "GOLD"] } },
  "RateLimit-Policy": {
    description:
      'The key\'s two windows (draft-ietf-httpapi-ratelimit-headers): `"day";q=<limit>;w=86400, "burst";q=<limit>;w=60`',
    schema: text,
  },
  RateLimit: {
    description:
      'What is left in each window and the seconds until a unit frees: `"day";r=<left>;t=<s>, "burst";r=<left>;t=<s>`. A 429 shows the window that refused with `r=0`',
    schema: text,
  },
};
export const requestIdHeader: Headers = {
  "X-Request-Id": {
    description: "The request's id: the caller's own X-Request-Id when it sent a well-formed one, else a new UUID",
    required: true,
    schema: text,
  },
};
const retryAfter: Header = {
  description: "Seconds until a request can succeed",
  schema: { type: "integer", minimum: 1 },
};
const wwwAuthenticate: Header = { description: "`Bearer` challenge", required: true, schema: text };

/** Codes answered before the key is admitted: their answers carry no rate-limit headers. */
const beforeAdmission: ReadonlySet<ErrorCode> = new Set([
  "invalid_request",
  "headers_too_large",
  "missing_api_key",
  "invalid_api_key",
  "invalid_metrics_token",
  "link_invalid",
  "link_expired",
  "key_deleted",
  "internal_error",
  "store_unavailable",
]);

/** Codes the router answers before the key is checked: their answers carry the headers only for a known key. */
const whenKeyKnown: ReadonlySet<ErrorCode> = new Set(["method_not_allowed"]);

export function required(headers: Headers, isRequired = true): Headers {
  return Object.fromEntries(
    Object.entries(headers).map(([name, header]) => [name, { ...header, required: isRequired }]),
  );
}

/** The rate-limit headers of an answer made after admission: required, or optional where some codes come before it. */
export function rateLimitHeadersFor(codes: readonly ErrorCode[] | "admitted"): Headers {
  if (codes === "admitted") return required(rateLimitHeaders);
  const after = codes.filter((code) => !beforeAdmission.has(code)).length;
  const always = after === codes.length && !codes.some((code) => whenKeyKnown.has(code));
  return after === 0 ? {} : required(rateLimitHeaders, always);
}

const statusText: Record<number, string> = {
  400: "The request or a parameter is malformed, or names what this operation does not take",
  401: "The API key is missing or not known",
  403: "The key is passive or expired, or a host is not one this server fetches from",
  404: "There is no such operation, or the post or file does not exist or is not public",
  405: "The method is not one this path takes",
  413: "The file is larger than this server relays",
  416: "The Range asks for bytes beyond the end of the file",
  429:
    "A limit is reached: the daily quota, the burst allowance or the concurrent work; Retry-After says when to try again",
  431: "The request line or headers are larger than this server reads",
  500: "The server failed",
  502: "The platform, its media host or a media tool failed",
  503:
    "This server cannot serve the request right now: its database cannot be reached (Retry-After says when), or a media tool is missing",
  504: "The platform or its media host did not answer in time, or sent nothing of the file",
};

/** A problem+json answer with `status` whose `code` is one of `codes`. */
function problemResponse(status: number, codes: readonly ErrorCode[]) {
  const headers: Headers = { ...rateLimitHeadersFor(codes), ...requestIdHeader };
  if (status === 401) headers["WWW-Authenticate"] = wwwAuthenticate;
  if (status === 405) headers.Allow = { description: "The methods the path takes", required: true, schema: text };
  if (status === 429) headers["Retry-After"] = { ...retryAfter, required: true };
  if (status === 502 || status === 503) headers["Retry-After"] = retryAfter;
  return {
    description: `${statusText[status] ?? "Error"}. Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
    headers,
    content: {
      "application/problem+json": {
        schema: {
          allOf: [{ $ref: "#/components/schemas/Problem" }, {
            type: "object",
            properties: { status: { const: status }, code: { enum: [...codes] } },
          }],
        },
      },
    },
  };
}

/** The problem answers of an operation, one per status of the table its codes have, in status order. */
export function problemResponses(codes: readonly ErrorCode[]): Record<string, ReturnType<typeof problemResponse>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = errorTable[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, each]) => [String(status), problemResponse(status, each)]),
  );
}

/** The binary body of a file, per content type: what the platform's host serves, or what ffmpeg writes. */
export function fileContent() {
  const binary = (mediaType: string) => ({ schema: { type: "string", contentMediaType: mediaType } });
  return {
    "video/mp4": binary("video/mp4"),
    "audio/mpeg": binary("audio/mpeg"),
    "audio/mp4": binary("audio/mp4"),
    "image/*": binary("image/*"),
    "video/*": binary("video/*"),
    "application/octet-stream": binary("application/octet-stream"),
  };
}

export type Responses = Record<string, { description: string; headers?: Headers; content?: Record<string, unknown> }>;

/** The answers of HEAD where GET is: the same statuses and headers, no body. */
export function withoutBodies(responses: Responses): Responses {
  return Object.fromEntries(Object.entries(responses).map(([status, { content: _body, ...rest }]) => [status, rest]));
}

/** The id of a GET operation's HEAD twin: `head` + the GET's id capitalized. */
export function headIdOf(operationId: string): string {
  return `head${operationId[0]!.toUpperCase()}${operationId.slice(1)}`;
}

/** A GET operation and its HEAD twin (the router serves HEAD wherever GET is). */
export function withHead(
  operationId: string,
  get: Record<string, unknown> & { responses: Responses; summary: string },
): Record<string, unknown> {
  return {
    get: { operationId, ...get },
    head: {
      ...get,
      operationId: headIdOf(operationId),
      summary: `${get.summary} (headers only)`,
      responses: withoutBodies(get.responses),
    },
  };
}

/** A request body's schema as a caller sends it (defaults may be left out), inline: the components show answers. */
export function requestBodySchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
  return json;
}

/** A JSON answer of a component schema, with the admitted key's rate-limit headers and `extra` headers. */
export function jsonAnswer(
  status: number,
  component: string,
  description: string,
  extra: Headers = {},
): Responses {
  return {
    [status]: {
      description,
      headers: { ...rateLimitHeadersFor("admitted"), ...requestIdHeader, ...extra },
      content: { "application/json": { schema: { $ref: `#/components/schemas/${component}` } } },
    },
  };
}
