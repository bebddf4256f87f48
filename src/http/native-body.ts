// A Response may carry the runtime's own object its body stream reads from (on Node, the upstream
// socket's Readable). That runtime's server adapter can send it straight and skip Web Streams on
// the byte path (docs/relay-costs.md: the client and the stream layer decide throughput on Node).
// Other runtimes and any code that wraps the Response just use `response.body`, which reads the
// same bytes lazily: whichever of the two is consumed first is the one that gets the bytes, so
// use only one.

const NATIVE_BODY = Symbol.for("media-api.native-body");

export function withNativeBody(response: Response, body: unknown): Response {
  Object.defineProperty(response, NATIVE_BODY, { value: body });
  return response;
}

/**
 * The unread native body behind `response.body`, if there is one; the adapter that made it knows
 * its type. An adapter that sends it must cut its response when that fails, so the client sees a
 * cut transfer.
 */
export function nativeBodyOf(response: Response): unknown {
  return (response as unknown as Record<symbol, unknown>)[NATIVE_BODY];
}
