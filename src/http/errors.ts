// The one table of error codes the service answers with. Each row: the HTTP status, and whether
// the same request may succeed later (a retry can help) or only a changed request or an
// operator's act can. `ApiError` takes a code of this table, so a misspelled code does not
// compile; the OpenAPI document's code lists and every set of codes elsewhere are drawn from it.

interface ErrorRow {
  status: number;
  /** True when sending the same request again later may succeed. */
  retry: boolean;
}

export const errorTable = {
  // The caller's request.
  invalid_request: { status: 400, retry: false },
  invalid_parameter: { status: 400, retry: false },
  unknown_parameter: { status: 400, retry: false },
  invalid_url: { status: 400, retry: false },
  unsupported_platform: { status: 400, retry: false },
  unsupported_url: { status: 400, retry: false },
  format_not_available: { status: 400, retry: false },
  format_not_streamable: { status: 400, retry: false },
  form_cut_off: { status: 400, retry: false },
  weak_password: { status: 400, retry: false },
  missing_api_key: { status: 401, retry: false },
  invalid_api_key: { status: 401, retry: false },
  invalid_metrics_token: { status: 401, retry: false },
  key_passive: { status: 403, retry: false },
  key_expired: { status: 403, retry: false },
  // Signed links (docs/api.md, Signed links): the key of a link may also be passive or expired.
  link_invalid: { status: 403, retry: false },
  link_expired: { status: 403, retry: false },
  key_deleted: { status: 403, retry: false },
  host_not_allowed: { status: 403, retry: false },
  cross_origin_post: { status: 403, retry: false },
  form_expired: { status: 403, retry: false },
  not_found: { status: 404, retry: false },
  no_media: { status: 404, retry: false },
  no_transcript: { status: 404, retry: false },
  post_unavailable: { status: 404, retry: false },
  account_not_found: { status: 404, retry: false },
  key_not_found: { status: 404, retry: false },
  webhook_not_found: { status: 404, retry: false },
  method_not_allowed: { status: 405, retry: false },
  request_timeout: { status: 408, retry: true },
  email_taken: { status: 409, retry: false },
  webhooks_full: { status: 409, retry: false },
  watches_full: { status: 409, retry: false },
  job_not_finished: { status: 409, retry: true },
  file_too_large: { status: 413, retry: false },
  form_too_large: { status: 413, retry: false },
  unsupported_form: { status: 415, retry: false },
  range_not_satisfiable: { status: 416, retry: false },
  headers_too_large: { status: 431, retry: false },
  // Limits: the same request succeeds once the window or a slot frees.
  quota_exceeded: { status: 429, retry: true },
  burst_exceeded: { status: 429, retry: true },
  too_many_downloads: { status: 429, retry: true },
  too_many_extractions: { status: 429, retry: true },
  // 499 as nginx uses it: nobody is left to read the answer.
  client_closed: { status: 499, retry: true },
  // The service, the platform or a media tool.
  internal_error: { status: 500, retry: true },
  upstream_failed: { status: 502, retry: true },
  upstream_blocked: { status: 502, retry: true },
  tool_exited: { status: 502, retry: true },
  // A tool run hit its memory ceiling (EXTRACT_MEMORY_MB): the same link would again.
  memory_exceeded: { status: 502, retry: false },
  source_not_streamable: { status: 502, retry: false },
  // The post's pages and API answers are larger than an extraction reads (egress-budget.ts).
  source_too_large: { status: 502, retry: false },
  // The platform led this server to an address it may not reach (a private one): it would again.
  upstream_not_allowed: { status: 502, retry: false },
  busy: { status: 503, retry: true },
  store_unavailable: { status: 503, retry: true },
  tool_missing: { status: 503, retry: false },
  upstream_timeout: { status: 504, retry: true },
} as const satisfies Record<string, ErrorRow>;

/** A stable snake_case word a client can branch on: a row of the table. */
export type ErrorCode = keyof typeof errorTable;

export const errorCodes = Object.keys(errorTable) as ErrorCode[];

/** The codes of the table answered with `status`. */
export function codesWithStatus(status: number): ErrorCode[] {
  return errorCodes.filter((code) => errorTable[code].status === status);
}
