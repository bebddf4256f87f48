// When is a response over? Only the server adapter knows when the last body byte went out, and a
// streamed download holds things until then (a slot, the active-downloads gauge). Wrapping the body
// to find out would put JavaScript on every chunk, which halves Deno's relay throughput
// (docs/relay-costs.md), so the adapter says it instead: it calls the reply's `done` (runtime/serve.ts)
// once the response was sent in full or abandoned. A client that goes away aborts the request's
// signal on every runtime, which also counts as done, so nothing is held for ever when an adapter
// is silent. Node's adapter (which Bun runs too) calls it on the ServerResponse's close; Deno's when
// the handler info's `completed` promise settles.
import type { BodyEnd } from "../runtime/serve.ts";

export type { BodyEnd };

/** One response's end: what waits for it, and the adapter's word that it came. */
export interface ResponseEnd {
  /** Runs `callback` once, when the response is over. */
  whenDone(callback: (end: BodyEnd) => void): void;
  /** For the adapter: the response has been sent in full, or abandoned, and how. Only the first call counts. */
  done(end: BodyEnd): void;
}

/** The end of the response to a request whose signal is `signal`. */
export function responseEnd(signal: AbortSignal): ResponseEnd {
  const waiting: ((end: BodyEnd) => void)[] = [];
  let ended: BodyEnd | undefined;
  const done = (end: BodyEnd) => {
    if (ended) return;
    ended = end;
    signal.removeEventListener("abort", aborted);
    for (const callback of waiting.splice(0)) callback(end);
  };
  const aborted = () => done({ ended: "cut by client" });
  if (signal.aborted) aborted();
  else signal.addEventListener("abort", aborted, { once: true });
  return {
    whenDone(callback) {
      if (ended) callback(ended);
      else waiting.push(callback);
    },
    done,
  };
}
