// A client that takes none of a download's bytes would hold what the download holds (a slot, a
// child process, an upstream connection) until the download's own time cap, 15 minutes in page
// mode. So a download's body is cut when its consumer (the server adapter writing to the client)
// has not pulled for CLIENT_STALL_TIMEOUT_S while the bytes it was handed wait to go out: the body
// errors, so the client sees a broken transfer, and its source is cancelled, which ends the child
// or the upstream connection. A slow client is not cut. Its pulls alone do not show that: a client
// reading a few KB/s leaves megabytes in the socket buffers and the adapter may not pull for
// minutes, so where the adapter can read the client's progress past those buffers (the Arrival's
// `clientProgress`), a reading that moved counts as the client taking something.
import { NativeBodyResponse } from "./native-body.ts";

/** A reading of a client's progress past the socket buffers (runtime/serve.ts, Arrival `clientProgress`). */
export type ClientProgress = () => string | undefined;

/**
 * Readings of `progress` compared one to the next: `moved()` is true when the client may have taken
 * something since the previous reading. A first reading after `reset()` counts as moved, since
 * nothing before it tells otherwise: a client is cut only after a whole timeout of readings that
 * stood still, so a stalled one goes between one timeout and one and a half.
 */
export function progressWatch(progress: ClientProgress | undefined): { moved(): boolean; reset(): void } {
  let last: string | undefined;
  return {
    moved() {
      const mark = progress?.();
      const moved = mark !== undefined && mark !== last;
      last = mark;
      return moved;
    },
    reset: () => void (last = undefined),
  };
}

/**
 * How often a waiting client is looked at: with readings of its progress, twice a timeout, so that
 * two readings a timeout apart tell a stalled client from one a full buffer hides.
 */
export const stallPeriodMs = (
  timeoutMs: number,
  progress: ClientProgress | undefined,
): number => (progress ? timeoutMs / 2 : timeoutMs);

/**
 * `response` with its body watched. A native body (native-body.ts) that the adapter sends without
 * the Web stream cannot be watched here; it carries the timeout, and its adapter watches its
 * socket instead.
 */
export function cutWhenClientStalls(response: Response, timeoutMs: number, progress?: ClientProgress): Response {
  if (response.body === null || timeoutMs <= 0) return response;
  const watched = stallWatched(response.body, timeoutMs, progress);
  if (!(response instanceof NativeBodyResponse)) return new Response(watched, response);
  return new NativeBodyResponse(watched, response, { body: response.native.body, stallTimeoutMs: timeoutMs });
}

/**
 * The body, erroring and cancelling its source when `timeoutMs` pass between handing a chunk to the
 * consumer and its next pull with no reading of `progress` moving. One pull, one chunk: nothing is
 * read ahead of the client. One timer serves the whole body: it wakes once per period and looks at
 * how long the consumer has been away, instead of a timer per chunk.
 */
export function stallWatched(
  body: ReadableStream<Uint8Array>,
  timeoutMs: number,
  progress?: ClientProgress,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const period = stallPeriodMs(timeoutMs, progress);
  const client = progressWatch(progress);
  /** Since when the consumer has held a chunk with nothing moving; null while it waits for one (or it is over). */
  let handedAt: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    timer = undefined;
    if (handedAt === null) return;
    const now = performance.now();
    if (client.moved()) handedAt = now;
    const left = handedAt + timeoutMs - now;
    if (left > 0) return void (timer = setTimeout(watch, Math.min(left, period), controller));
    handedAt = null;
    const error = new Error(`The client took nothing for ${timeoutMs} ms.`);
    controller.error(error);
    void reader.cancel(error).catch(() => {});
  };
  const stop = () => {
    handedAt = null;
    clearTimeout(timer);
    timer = undefined;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        handedAt = null;
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          stop();
          throw error;
        }
        if (read.done) {
          stop();
          return controller.close();
        }
        controller.enqueue(read.value);
        handedAt = performance.now();
        client.reset();
        timer ??= setTimeout(watch, period, controller);
      },
      cancel(reason) {
        stop();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
