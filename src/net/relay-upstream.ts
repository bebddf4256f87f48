// The one seam between the relay and a runtime's HTTP client. The entry file picks the client:
// the node:net one of src/runtime/node/ (Node and Bun) or `fetchUpstream` (Deno).

export interface UpstreamRequest {
  url: URL;
  /** POST only for the service's own readers (src/net/outbound.ts): a guest-token call, a web client's query. */
  method: "GET" | "HEAD" | "POST";
  headers: Record<string, string>;
  /** A POST's body (a form), whose length is sent; none for the rest. */
  body?: Uint8Array<ArrayBuffer>;
  signal: AbortSignal;
  /** An already vetted IP address to connect to, so a second DNS answer cannot differ. */
  address?: string;
  /** Once the head is in, the body is cut (it errors) when the source sends nothing for this long. */
  idleTimeoutMs?: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Headers;
  /** Null for HEAD. Cancelling it closes the upstream connection. */
  body: ReadableStream<Uint8Array> | null;
  /** The runtime's own object behind `body`, unread, for its server adapter (src/http/native-body.ts). */
  native?: unknown;
  /**
   * Settles when the body is over: read to its end, cut, or cancelled (at once for HEAD). Never
   * for a body fetchUpstream leaves unwatched: the server adapter tells when the response is over.
   */
  ended: Promise<void>;
}

/** Sends one request without following redirects; rejects only when no response head arrived. */
export type UpstreamClient = (request: UpstreamRequest) => Promise<UpstreamResponse>;

/**
 * Upstream client on the runtime's fetch, for Deno. It cannot pin the connection to `address` (fetch has no lookup
 * hook), so the address check is done on a separate resolution. Without an idle timeout the body is
 * fetch's own, which Deno's server passes on without running JavaScript per chunk.
 */
export const fetchUpstream: UpstreamClient = async ({ url, method, headers, body, signal, idleTimeoutMs }) => {
  const response = await fetch(url, { method, headers, body, signal, redirect: "manual" });
  if (method === "HEAD" || response.body === null) {
    await response.body?.cancel();
    return { status: response.status, headers: response.headers, body: null, ended: Promise.resolve() };
  }
  if (idleTimeoutMs === undefined) {
    return { status: response.status, headers: response.headers, body: response.body, ended: new Promise(() => {}) };
  }
  return { status: response.status, headers: response.headers, ...watchedBody(response.body, idleTimeoutMs) };
};

/**
 * The body, erroring (and cancelling the upstream) when a read waits longer than `idleTimeoutMs`.
 * The clock runs only while a read is pending: a slow reader is not a stalled source. This puts
 * JavaScript on every chunk, which Deno's fast path otherwise avoids (Deno's fetch has no read
 * timeout of its own); the price of not holding a stalled connection for ever. One timer serves
 * the whole body: it wakes once per idle period and looks at how long the pending read has waited,
 * which costs far less per chunk than a timer and a race for every read.
 */
function watchedBody(
  body: ReadableStream<Uint8Array>,
  idleTimeoutMs: number,
): { body: ReadableStream<Uint8Array>; ended: Promise<void> } {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending read began; null while none is pending. */
  let readingSince: number | null = null;
  const finish = () => {
    end();
    clearTimeout(timer);
  };
  const stop = (reason?: unknown) => {
    finish();
    return reader.cancel(reason).catch(() => {});
  };
  const watch = (controller: ReadableStreamDefaultController<Uint8Array>, idleMs: number) => {
    timer = undefined;
    if (readingSince === null) return;
    const left = readingSince + idleMs - performance.now();
    if (left > 0) return void (timer = setTimeout(watch, left, controller, idleMs));
    readingSince = null;
    const error = new Error(`The media host sent nothing for ${idleMs} ms.`);
    controller.error(error);
    void stop(error);
  };
  const watched = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        readingSince = performance.now();
        timer ??= setTimeout(watch, idleTimeoutMs, controller, idleTimeoutMs);
        try {
          const read = await reader.read();
          // The watch may have cut the body while this read waited; the stream is errored then.
          if (readingSince === null) return;
          if (read.done) {
            finish();
            return controller.close();
          }
          controller.enqueue(read.value);
        } catch (error) {
          finish();
          throw error;
        } finally {
          readingSince = null;
        }
      },
      cancel: (reason) => stop(reason),
    },
    { highWaterMark: 0 },
  );
  return { body: watched, ended };
}
