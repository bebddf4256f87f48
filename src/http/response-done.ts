// When is a response over? Only the server adapter knows when the last body byte went out, and a
// streamed download holds things until then (a slot in the active-downloads gauge). Wrapping the
// body to find out would put JavaScript on every chunk, which halves Deno's relay throughput
// (docs/relay-costs.md), so the adapter says it instead: it calls responseDone(request) once the
// response was sent in full or abandoned. A client that goes away aborts the request's signal on
// every runtime, which also counts as done, so nothing is held for ever when an adapter is silent.
// Node's adapter (which Bun runs too) calls it on the ServerResponse's close; Deno's when the
// handler info's `completed` promise settles.

/** How a response's body ended: sent in full, cut because the client went away, or cut by an error. */
export type BodyEnd = { ended: "complete" } | { ended: "cut by client" } | { ended: "cut by error"; error: unknown };

const waiting = new WeakMap<Request, ((end: BodyEnd) => void)[]>();

/** Runs `callback` once, when the response to `request` is over. */
export function whenResponseDone(request: Request, callback: (end: BodyEnd) => void): void {
  let called = false;
  const once = (end: BodyEnd) => {
    if (called) return;
    called = true;
    request.signal.removeEventListener("abort", aborted);
    callback(end);
  };
  const aborted = () => once({ ended: "cut by client" });
  if (request.signal.aborted) return aborted();
  request.signal.addEventListener("abort", aborted, { once: true });
  const callbacks = waiting.get(request) ?? [];
  callbacks.push(once);
  waiting.set(request, callbacks);
}

/** For server adapters: the response to `request` has been sent in full, or abandoned, and how. */
export function responseDone(request: Request, end: BodyEnd): void {
  const callbacks = waiting.get(request);
  waiting.delete(request);
  for (const callback of callbacks ?? []) callback(end);
}
