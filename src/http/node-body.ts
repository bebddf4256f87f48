// A Response may carry the Node Readable its body stream reads from. The Node server adapter can
// pipe that Readable straight into the ServerResponse and skip Web Streams on the byte path
// (docs/relay-costs.md: the client and the stream layer decide throughput on Node). Other runtimes and
// any code that wraps the Response just use `response.body`, which reads the same bytes lazily:
// whichever of the two is consumed first is the one that gets the bytes, so use only one.

import type { Readable } from "node:stream";

const NODE_BODY = Symbol.for("media-api.node-body");

export function withNodeBody(response: Response, body: Readable): Response {
  Object.defineProperty(response, NODE_BODY, { value: body });
  return response;
}

/**
 * The unread Node Readable behind `response.body`, if there is one. A server adapter that pipes it
 * must destroy its ServerResponse when the pipeline fails, so the client sees a cut transfer.
 */
export function nodeBodyOf(response: Response): Readable | undefined {
  return (response as unknown as Record<symbol, Readable | undefined>)[NODE_BODY];
}
