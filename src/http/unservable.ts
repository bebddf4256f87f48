// Requests that never reach the app because the Fetch API cannot represent them: a Host header or
// request target that is no URL (`Host: a b`, `a:99999`, `[`), credentials in it (`u@x`,
// `http://user:pass@host/`), or a method fetch forbids (CONNECT, TRACE, TRACK); and requests the
// server's HTTP parser refused before that (parserRefusal). Each runtime adapter answers them with
// these errors through the app's error sink (runtime/serve.ts, `refuse`), so a malformed request is
// a 400 (or 405, 408, 431), never a crash.
import { ApiError } from "./problem.ts";
import { MAX_URL_LENGTH } from "./query.ts";

/** Every method some route of the service answers. */
const KNOWN_METHODS = "GET, HEAD, POST, OPTIONS";
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
/** A reg-name, IPv4 or bracketed IPv6 host with an optional port, as RFC 9110 allows in Host. */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** 405 for a method no route answers and fetch cannot carry (or the server's parser does not know). */
export function methodNotServed(method: string): ApiError {
  return new ApiError(
    "method_not_allowed",
    `This server does not answer ${method.slice(0, 16)}; use ${KNOWN_METHODS}.`,
    {
      headers: { allow: KNOWN_METHODS },
    },
  );
}

export function malformedRequest(): ApiError {
  return new ApiError("invalid_request", "The request's Host header or target is not a valid URL without credentials.");
}

/**
 * The answer to what an HTTP/1.1 parser refused, by llhttp's error code (Node's and Bun's servers
 * both name them so), in words that say which part of the request was wrong.
 */
export function parserRefusal(code: string | undefined): ApiError {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(
        "headers_too_large",
        `The request line and headers are larger than this server reads. The \`url\` parameter may hold at most ${MAX_URL_LENGTH} characters.`,
      );
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError("request_timeout", "The request did not arrive in time.");
    case "HPE_INVALID_METHOD":
      return methodNotServed("this method");
    // A space or control character in the target ends it early, and what follows is no HTTP version.
    case "HPE_INVALID_CONSTANT":
    case "HPE_INVALID_VERSION":
    case "HPE_INVALID_URL":
      return new ApiError(
        "invalid_request",
        "The request line is not valid HTTP: its target holds a space or a control character. URL-encode each query parameter's value, the `url` above all (encodeURIComponent, or `curl -G --data-urlencode url=...`).",
      );
    default:
      return new ApiError(
        "invalid_request",
        "The request is not valid HTTP/1.1: a header or the framing of its body could not be read.",
      );
  }
}

/** The URL of a request as a server received it; throws one of the errors above when it is none. */
export function requestUrl(method: string, target: string, host: string): URL {
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) throw methodNotServed(method);
  const url = HOST.test(host) ? URL.parse(target, `http://${host}`) : null;
  if (url === null || url.username !== "" || url.password !== "") throw malformedRequest();
  return url;
}

/** What a request that could not be turned into a Fetch Request is refused as. */
export function unservable(error: unknown): ApiError {
  return error instanceof ApiError ? error : malformedRequest();
}
