// The one error type of the service. Anything thrown below a handler that is not an ApiError
// becomes a 500 in problemResponse, so callers never see a stack trace.
import { causeText, errorText, type Logger } from "../log.ts";
import { type ErrorCode, errorTable } from "./errors.ts";

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export class ApiError extends Error {
  readonly status: number;
  /** Stable snake_case word a client can branch on; its row in the error table gives the status. */
  readonly code: ErrorCode;
  /** Extra response headers, such as Allow, Retry-After or WWW-Authenticate. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = "ApiError";
    this.status = errorTable[code].status;
    this.code = code;
    this.headers = options.headers ?? {};
  }
}

/** 502 upstream_failed: the platform, media host or media tool failed, not the caller. */
export function upstreamFailed(
  detail: string,
  options: { headers?: Record<string, string>; cause?: unknown } = {},
): ApiError {
  return new ApiError("upstream_failed", detail, options);
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
}

export function toProblem(error: ApiError): Problem {
  return {
    type: "about:blank",
    title: titles[error.status] ?? "Error",
    status: error.status,
    detail: error.message,
    code: error.code,
  };
}

/**
 * Unexpected errors are logged with their stack (they are answered as a bare 500); an upstream
 * failure, or a refusal with a cause (yt-dlp's words, a client's cut-off body), is logged with its
 * cause, which the answer leaves out.
 */
export function logProblem(error: unknown, log: Logger): void {
  if (!(error instanceof ApiError)) log.error("unhandled error", { error: errorText(error, { stack: true }) });
  else if (error.status >= 500 && error.cause !== undefined) {
    log.warn("upstream failure", { code: error.code, cause: causeText(error.cause) });
  } // What yt-dlp said behind a 400 or 404, which the answer puts in our own words.
  else if (error.cause !== undefined) log.info("refused", { code: error.code, cause: causeText(error.cause) });
}

/** Turns any thrown value into an RFC 9457 problem+json response. */
export function problemResponse(thrown: unknown): Response {
  const error = thrown instanceof ApiError
    ? thrown
    : new ApiError("internal_error", "The server failed to handle this request; try again later.");
  return new Response(JSON.stringify(toProblem(error)), {
    status: error.status,
    headers: { "content-type": "application/problem+json", ...error.headers },
  });
}
