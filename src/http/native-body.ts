// A Response may carry the runtime's own object its body stream reads from (on Node, the upstream
// socket's Readable). The app hands it to the server adapter as the reply's native body
// (runtime/serve.ts), which can send it straight and skip Web Streams on the byte path
// (docs/relay-costs.md: the client and the stream layer decide throughput on Node). Other runtimes
// and any code that wraps the Response just use `response.body`, which reads the same bytes lazily:
// whichever of the two is consumed first is the one that gets the bytes, so use only one.
import type { NativeBody } from "../runtime/serve.ts";

/** A Response whose body also has a native form: the type says what it carries. */
export class NativeBodyResponse extends Response {
  constructor(
    body: ReadableStream<Uint8Array> | null,
    init: ResponseInit,
    readonly native: NativeBody,
  ) {
    super(body, init);
  }
}

/** `response` with `body`, the runtime's object its body reads from, beside it. */
export function withNativeBody(response: Response, body: unknown): Response {
  return new NativeBodyResponse(response.body, response, { body });
}

/**
 * The unread native body behind `response.body`, if there is one; the adapter that made it knows
 * its type. An adapter that sends it must cut its response when that fails, so the client sees a
 * cut transfer.
 */
export function nativeBodyOf(response: Response): unknown {
  return response instanceof NativeBodyResponse ? response.native.body : undefined;
}

/** What the app hands the adapter of `response`'s native body (runtime/serve.ts, Reply). */
export function nativeBodyReply(response: Response): NativeBody | undefined {
  return response instanceof NativeBodyResponse ? response.native : undefined;
}
