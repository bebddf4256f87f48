// The error sink: the one place a thrown value becomes an answer. The API, the probes and what the
// server adapters refuse before a request exists are answered as RFC 9457 problem+json with the
// CORS headers (a browser's caller must be able to read even a 400 or 431) and the request's id;
// the owner's pages (src/web/) as an HTML page with the site's security headers. Whatever is not
// an ApiError is logged with its stack and answered as a bare 500.
import type { Logger } from "../log.ts";
import type { FetchHandler, Served } from "../runtime/serve.ts";
import { StoreFullError, StoreUnavailableError } from "../store/db.ts";
import { htmlResponse, securityHeaders } from "../web/html.ts";
import { errorPage } from "../web/pages.ts";
import { corsHeaders } from "../http/cors.ts";
import { ApiError, logProblem, problemResponse } from "../http/problem.ts";

export interface Answering {
  /** "api": problem+json; "page": an HTML page of the owner's site. */
  as: "api" | "page";
  /** The request's logger, whose lines carry its id. */
  log: Logger;
  requestId?: string;
  /** CORS_ORIGIN, for an API answer. */
  corsOrigin?: string;
}

const pageTitles: Record<number, string> = {
  403: "Not allowed",
  404: "Not found",
  413: "Form too large",
  415: "Not a form",
};

/** The answer to `thrown`, logged as logProblem says. */
export function errorAnswer(thrown: unknown, answering: Answering): Response {
  const error = thrown instanceof StoreUnavailableError ? storeUnavailable(thrown) : thrown;
  logProblem(error, answering.log);
  const response = answering.as === "page" ? pageFor(error) : problemResponse(error);
  if (answering.as === "api" && answering.corsOrigin !== undefined) {
    for (const [name, value] of Object.entries(corsHeaders(answering.corsOrigin))) response.headers.set(name, value);
  }
  if (answering.requestId !== undefined) response.headers.set("x-request-id", answering.requestId);
  return response;
}

function pageFor(thrown: unknown): Response {
  const error = thrown instanceof ApiError
    ? thrown
    : new ApiError("internal_error", "The server failed to handle this request; try again later.");
  const title = pageTitles[error.status] ?? "Something went wrong";
  const response = htmlResponse(errorPage({ title, detail: error.message }), {
    status: error.status,
    headers: error.headers,
  });
  for (const [name, value] of Object.entries(securityHeaders)) response.headers.set(name, value);
  return response;
}

function storeUnavailable(error: StoreUnavailableError): ApiError {
  const detail = error instanceof StoreFullError
    ? "The service cannot write to its database right now; try again later."
    : "The service cannot reach its database right now; try again shortly.";
  return new ApiError("store_unavailable", detail, {
    headers: { "retry-after": String(error.retryAfterS) },
    cause: error,
  });
}

/**
 * A handler that answers a Response alone (the operator's admin channel) as a server adapter serves
 * it: nothing sent natively, nothing to learn when a body is over, refusals as bare problem+json.
 */
export function servedFetch(fetch: FetchHandler, log: Logger): Served {
  return {
    answer: async (request) => ({ response: await fetch(request), done: () => {} }),
    refuse: (error, requestId) => errorAnswer(error, { as: "api", log, requestId }),
  };
}
