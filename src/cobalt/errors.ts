// cobalt's answers of failure: HTTP 400 `{status: "error", error: {code, context?}}` with cobalt's
// codes (`error.api.*`), so that its clients show their own translated texts; 429
// `error.api.rate_exceeded` with `context.limit` (seconds) for our quotas. These are cobalt's words
// for our errors (src/http/errors.ts), not codes of this service: the table below says which of
// ours each stands for.
import type { ErrorCode } from "../http/errors.ts";
import { json } from "../http/json-response.ts";

/** What cobalt's clients are told, and whether the link's service is named in the text (`context.service`). */
interface CobaltFailure {
  code: string;
  withService?: boolean;
}

const failures: Partial<Record<ErrorCode, CobaltFailure>> = {
  invalid_url: { code: "link.invalid" },
  // cobalt answers a host it does not know with `link.invalid` ("...or this service is not supported yet").
  unsupported_platform: { code: "link.invalid" },
  unsupported_url: { code: "link.unsupported", withService: true },
  invalid_parameter: { code: "invalid_body" },
  unknown_parameter: { code: "invalid_body" },
  missing_api_key: { code: "auth.key.missing" },
  invalid_api_key: { code: "auth.key.not_found" },
  key_passive: { code: "auth.key.invalid" },
  key_expired: { code: "auth.key.invalid" },
  key_deleted: { code: "auth.key.not_found" },
  not_found: { code: "content.post.unavailable" },
  post_unavailable: { code: "content.post.unavailable" },
  no_media: { code: "fetch.empty" },
  format_not_available: { code: "fetch.empty" },
  format_not_streamable: { code: "fetch.empty" },
  host_not_allowed: { code: "link.invalid" },
  upstream_failed: { code: "fetch.fail", withService: true },
  upstream_blocked: { code: "fetch.rate", withService: true },
  upstream_timeout: { code: "fetch.fail", withService: true },
  tool_exited: { code: "fetch.fail", withService: true },
  source_not_streamable: { code: "fetch.fail", withService: true },
  source_too_large: { code: "fetch.fail", withService: true },
  file_too_large: { code: "fetch.fail", withService: true },
  busy: { code: "capacity" },
  store_unavailable: { code: "capacity" },
  tool_missing: { code: "capacity" },
  request_timeout: { code: "timed_out" },
};

/** Our codes a client should wait on: cobalt's `rate_exceeded`, HTTP 429 with the wait in `context.limit`. */
const waits = new Set<string>(["quota_exceeded", "burst_exceeded", "too_many_downloads", "too_many_extractions"]);

/** HTTP 400 with cobalt's error `code` (without its `error.api.` prefix) and context. */
export function cobaltError(code: string, context?: { service?: string; limit?: number }): Response {
  return json({ status: "error", error: { code: `error.api.${code}`, ...(context ? { context } : {}) } }, {
    status: 400,
  });
}

/**
 * cobalt's answer to our problem `code` (the API's problem+json). `service` is cobalt's name of the
 * link's service, for the texts that name it; `retryAfterS` the problem's Retry-After.
 */
export function cobaltAnswerOf(code: string, service: string | undefined, retryAfterS: number | undefined): Response {
  if (waits.has(code)) {
    const limit = retryAfterS ?? 60;
    const response = json({ status: "error", error: { code: "error.api.rate_exceeded", context: { limit } } }, {
      status: 429,
    });
    response.headers.set("retry-after", String(limit));
    return response;
  }
  const failure = failures[code as ErrorCode] ?? { code: "generic" };
  return cobaltError(failure.code, failure.withService && service ? { service } : undefined);
}
