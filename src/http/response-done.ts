// When is a response over? Only the server adapter knows when the last body byte went out, and a
// streamed download holds things until then (a slot in the active-downloads gauge). Wrapping the
// body to find out would put JavaScript on every chunk, which halves Deno's relay throughput
// (docs/relay-costs.md), so the adapter says it instead: it calls responseDone(request) once the
// response was sent in full or abandoned. A client that goes away aborts the request's signal on
// every runtime, which also counts as done, so nothing is held for ever when an adapter is silent.
// Node's adapter (which Bun runs too) calls it on the ServerResponse's close; Deno's when the
// handler info's `completed` promise settles.

const waiting = new WeakMap<Request, (() => void)[]>();

/** Runs `callback` once, when the response to `request` is over. */
export function whenResponseDone(request: Request, callback: () => void): void {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    request.signal.removeEventListener("abort", once);
    callback();
  };
  if (request.signal.aborted) return once();
  request.signal.addEventListener("abort", once, { once: true });
  const callbacks = waiting.get(request) ?? [];
  callbacks.push(once);
  waiting.set(request, callbacks);
}

/** For server adapters: the response to `request` has been sent in full, or abandoned. */
export function responseDone(request: Request): void {
  const callbacks = waiting.get(request);
  waiting.delete(request);
  for (const callback of callbacks ?? []) callback();
}
