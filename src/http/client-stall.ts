// A client that takes none of a download's bytes would hold what the download holds (a slot, a
// child process, an upstream connection) until the download's own time cap, 15 minutes in page
// mode. So a download's body is cut when its consumer (the server adapter writing to the client)
// has not pulled for CLIENT_STALL_TIMEOUT_S while the bytes it was handed wait to go out: the body
// errors, so the client sees a broken transfer, and its source is cancelled, which ends the child
// or the upstream connection. A slow client is not cut; one that takes less than a chunk in that
// time is.
import { NativeBodyResponse } from "./native-body.ts";

/**
 * `response` with its body watched. A native body (native-body.ts) that the adapter sends without
 * the Web stream cannot be watched here; it carries the timeout, and its adapter watches its
 * socket instead.
 */
export function cutWhenClientStalls(response: Response, timeoutMs: number): Response {
  if (response.body === null || timeoutMs <= 0) return response;
  const watched = stallWatched(response.body, timeoutMs);
  if (!(response instanceof NativeBodyResponse)) return new Response(watched, response);
  return new NativeBodyResponse(watched, response, { body: response.native.body, stallTimeoutMs: timeoutMs });
}

/**
 * The body, erroring and cancelling its source when `timeoutMs` pass between handing a chunk to the
 * consumer and its next pull. One pull, one chunk: nothing is read ahead of the client. One timer
 * serves the whole body: it wakes once per period and looks at how long the consumer has been
 * away, instead of a timer per chunk.
 */
export function stallWatched(body: ReadableStream<Uint8Array>, timeoutMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  /** When the last chunk was handed over; null while the consumer waits for one (or it is over). */
  let handedAt: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watch = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    timer = undefined;
    if (handedAt === null) return;
    const left = handedAt + timeoutMs - performance.now();
    if (left > 0) return void (timer = setTimeout(watch, left, controller));
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
        timer ??= setTimeout(watch, timeoutMs, controller);
      },
      cancel(reason) {
        stop();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
