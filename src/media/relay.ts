// Direct mode of the download operation: relay a media-CDN file to the caller as a stream, under
// our own file name, with Range passed through so downloads resume.

import { ApiError, upstreamFailed } from "../http/problem.ts";
import { byteCount } from "../http/content-length.ts";
import { withNativeBody } from "../http/native-body.ts";
import { assertDirectUrl, withOriginOverride } from "../http/direct-hosts.ts";
import { contentDisposition, extensionForContentType, nameFromMediaUrl, sanitizeFilename } from "./filename.ts";
import { egressAddress, portOf, type ResolveHost } from "../net/egress.ts";
import type { UpstreamClient, UpstreamResponse } from "../net/relay-upstream.ts";

export interface RelayInput {
  /** The URL to relay; must pass `allowed`. */
  url: URL;
  /** Throws unless the URL (or a redirect's target) may be fetched; default: X's media CDN (assertDirectUrl). */
  allowed?: (url: URL, what?: string) => void;
  method: "GET" | "HEAD";
  /** The caller's Range header, passed upstream unchanged. */
  range: string | null;
  /** Aborts when the caller goes away; the upstream request ends with it. */
  signal: AbortSignal;
  /** The caller's suggested name; the default is the URL's last path segment. */
  filename?: string;
  /** Called once the served file's upstream body is over (read to its end, cut or cancelled), or at once when there is none; never when this throws. */
  onEnd?: () => void;
}

export interface RelayOptions {
  /** Chosen by the runtime entry file: the node:net client on Node and Bun, fetchUpstream on Deno. */
  upstream: UpstreamClient;
  /** host -> origin (e.g. "http://127.0.0.1:9000"); operator-trusted, so no address check there. */
  originOverrides: ReadonlyMap<string, string>;
  maxBytes: number;
  /** Until the final response head arrives, redirects included. */
  firstByteTimeoutMs: number;
  /** After it, how long the body may send nothing before the transfer is cut. */
  idleTimeoutMs?: number;
  resolveHost: ResolveHost;
  /** Told the size of each chunk of a body whose length the media host did not declare (for metrics). */
  onUndeclaredBytes?: (count: number) => void;
  /** The operator's cookies for a URL (COOKIES_FILE), asked anew at every redirect; null for none. */
  cookies?: (url: URL) => Promise<string | null>;
}

export const MAX_REDIRECTS = 5;
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const PASSED_HEADERS = ["content-length", "accept-ranges", "etag", "last-modified"];

/** Resolves to the client's Response, or throws ApiError before any byte is sent. */
export async function relayMedia(input: RelayInput, options: RelayOptions): Promise<Response> {
  (input.allowed ?? assertDirectUrl)(input.url);
  const upstreamAbort = new AbortController();
  const onClientAbort = () => upstreamAbort.abort(input.signal.reason);
  input.signal.addEventListener("abort", onClientAbort, { once: true });
  if (input.signal.aborted) onClientAbort();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    upstreamAbort.abort(new Error("first byte timeout"));
  }, options.firstByteTimeoutMs);

  let upstream: UpstreamResponse;
  try {
    upstream = await followRedirects(input, options, upstreamAbort.signal);
  } catch (error) {
    input.signal.removeEventListener("abort", onClientAbort);
    if (timedOut) {
      throw new ApiError("upstream_timeout", "The media host did not answer in time; try again later.", {
        cause: error,
      });
    }
    if (error instanceof ApiError) throw error;
    throw upstreamFailed("The media host could not be reached; try again later.", { cause: error });
  } finally {
    clearTimeout(timer);
  }
  let response: Response;
  try {
    response = await clientResponse(upstream, input, options);
  } catch (error) {
    input.signal.removeEventListener("abort", onClientAbort);
    throw error;
  }
  // Only a file that is served is told at its end: a refused one is over for the caller (who may
  // try the file's mirror under the same slot) when this throws.
  if (input.onEnd) void upstream.ended.then(input.onEnd);
  return response;
}

async function followRedirects(
  input: RelayInput,
  options: RelayOptions,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const headers: Record<string, string> = { "accept-encoding": "identity", "user-agent": "media-api" };
  if (input.range !== null) headers.range = input.range;
  const seen = new Set<string>();
  for (let url = input.url;;) {
    seen.add(url.href);
    const target = await connectionTarget(url, options);
    const cookie = (await options.cookies?.(url)) ?? null;
    const response = await options.upstream({
      ...target,
      method: input.method,
      headers: cookie === null ? headers : { ...headers, cookie },
      signal,
      idleTimeoutMs: options.idleTimeoutMs,
    });
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    void response.ended.catch(() => {});
    await response.body?.cancel();
    const next = redirectTarget(response.headers.get("location"), url);
    (input.allowed ?? assertDirectUrl)(next, "A redirect target of the url");
    if (seen.has(next.href)) throw upstreamFailed("The media host redirects in a loop.");
    if (seen.size > MAX_REDIRECTS) throw upstreamFailed(`The media host redirects more than ${MAX_REDIRECTS} times.`);
    url = next;
  }
}

// Where to send the request for an allowed URL: the operator's override origin, or the host
// itself pinned to the address the egress policy checked (no endpoint of a CDN name is trusted).
async function connectionTarget(url: URL, options: RelayOptions): Promise<{ url: URL; address?: string }> {
  const overridden = withOriginOverride(url, options.originOverrides);
  if (overridden !== url) return { url: overridden };
  const address = await egressAddress(url.hostname, portOf(url), {
    trusted: noEndpoints,
    resolveHost: options.resolveHost,
  });
  return { url, address: address! };
}

const noEndpoints: ReadonlySet<string> = new Set();

function redirectTarget(location: string | null, base: URL): URL {
  if (location === null) throw upstreamFailed("The media host sent a redirect without a Location.");
  try {
    return new URL(location, base);
  } catch {
    throw upstreamFailed("The media host sent a malformed redirect.");
  }
}

async function clientResponse(upstream: UpstreamResponse, input: RelayInput, options: RelayOptions): Promise<Response> {
  const { maxBytes } = options;
  const { status, headers: upstreamHeaders } = upstream;
  if (status !== 200 && status !== 206) {
    await upstream.body?.cancel();
    throw statusError(status, upstreamHeaders);
  }
  const contentLength = byteCount(upstreamHeaders.get("content-length"));
  // The whole file counts, not just the requested part, or the cap could be passed range by range.
  const fileSize = byteCount(upstreamHeaders.get("content-range")?.split("/")[1] ?? null) ?? contentLength;
  if (fileSize !== null && fileSize > maxBytes) {
    await upstream.body?.cancel();
    throw new ApiError("file_too_large", `The file is ${fileSize} bytes; this server relays at most ${maxBytes}.`);
  }
  if (fileSize === 0) {
    await upstream.body?.cancel();
    throw emptyFile();
  }

  const contentType = upstreamHeaders.get("content-type") ?? "application/octet-stream";
  const urlName = nameFromMediaUrl(input.url);
  const extension = extensionForContentType(contentType) ?? urlName.ext ?? "bin";
  const headers = new Headers({
    "content-type": contentType,
    "content-disposition": contentDisposition(sanitizeFilename(input.filename || urlName.stem, extension)),
  });
  for (const name of PASSED_HEADERS) {
    const value = upstreamHeaders.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (status === 206) headers.set("content-range", upstreamHeaders.get("content-range") ?? "");

  if (input.method === "HEAD" || upstream.body === null) {
    await upstream.body?.cancel();
    return new Response(null, { status, headers });
  }
  // A known length is already within the cap and the upstream client stops there, so the bytes pass
  // untouched (and the Node adapter may take the raw Readable); an unknown length is counted.
  if (contentLength === null) {
    const body = await withFirstBytes(capped(upstream.body, maxBytes, options.onUndeclaredBytes));
    return new Response(body, { status, headers });
  }
  const response = new Response(upstream.body, { status, headers });
  return upstream.native === undefined ? response : withNativeBody(response, upstream.native);
}

/** The problem a media host's answer of `status` (not 200 or 206) is for the caller. */
export function statusError(status: number, headers: Headers): ApiError {
  if (status === 404 || status === 410) {
    return new ApiError("not_found", "The media host has no file at this url; it may have been deleted.");
  }
  if (status === 416) {
    const contentRange = headers.get("content-range");
    return new ApiError("range_not_satisfiable", "The Range header asks for bytes beyond the end of the file.", {
      headers: contentRange === null ? {} : { "content-range": contentRange },
    });
  }
  return upstreamFailed(`The media host answered ${status}; try again later.`);
}

/**
 * A file of no bytes is no file: 502 (a mirror may have it), never a 200 a client saves as the
 * download. A CDN that answers 200 with nothing in it is broken, whatever it declares.
 */
function emptyFile(): ApiError {
  return upstreamFailed("The media host sent an empty file (0 bytes); try again later.");
}

/**
 * The body once its first bytes are in, so that one that ends with none is refused before the
 * head goes out (an undeclared length says nothing of it beforehand).
 */
async function withFirstBytes(body: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  let first: ReadableStreamReadResult<Uint8Array>;
  try {
    do first = await reader.read(); while (!first.done && first.value.byteLength === 0);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw upstreamFailed("The media host broke off before sending the file; try again later.", { cause: error });
  }
  if (first.done) throw emptyFile();
  let pending: Uint8Array | null = first.value;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pending !== null) {
          controller.enqueue(pending);
          pending = null;
          return;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

// Errors the stream once more than maxBytes arrived, which also cancels the upstream request.
function capped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  onBytes?: (count: number) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        total += value.byteLength;
        if (total > maxBytes) {
          await reader.cancel();
          throw new ApiError("file_too_large", `The file is larger than the ${maxBytes} bytes this server relays.`);
        }
        onBytes?.(value.byteLength);
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
