// Requests that never reach the app because the Fetch API cannot represent them: a Host header or
// request target that is no URL (`Host: a b`, `a:99999`, `[`), credentials in it (`u@x`,
// `http://user:pass@host/`), or a method fetch forbids (CONNECT, TRACE, TRACK). Each runtime
// adapter answers them with these errors, so a malformed request is a 400 (or 405), never a crash.
import { ApiError, problemResponse } from "./problem.ts";

/** Every method some route of the service answers. */
const KNOWN_METHODS = "GET, HEAD, POST, OPTIONS";
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
/** A reg-name, IPv4 or bracketed IPv6 host with an optional port, as RFC 9110 allows in Host. */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** 405 for a method no route answers and fetch cannot carry (or the server's parser does not know). */
export function methodNotServed(method: string): ApiError {
  return new ApiError(405, "method_not_allowed", `This server does not answer ${method.slice(0, 16)}; use ${KNOWN_METHODS}.`, {
    headers: { allow: KNOWN_METHODS },
  });
}

export function malformedRequest(): ApiError {
  return new ApiError(400, "invalid_request", "The request's Host header or target is not a valid URL without credentials.");
}

/** The URL of a request as a server received it; throws one of the errors above when it is none. */
export function requestUrl(method: string, target: string, host: string): URL {
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) throw methodNotServed(method);
  const url = HOST.test(host) ? URL.parse(target, `http://${host}`) : null;
  if (url === null || url.username !== "" || url.password !== "") throw malformedRequest();
  return url;
}

/** The answer to a request that could not be turned into a Fetch Request. */
export function unservableResponse(error: unknown): Response {
  return problemResponse(error instanceof ApiError ? error : malformedRequest());
}
