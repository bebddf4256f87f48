// A child's stdout as a Web stream with backpressure: the child is paused while the stream's
// reader is behind, and resumed when it pulls.
import { ApiError } from "../http/problem.ts";
import type { SpawnedChild } from "./process-host.ts";

export interface ChildOutput {
  stream: ReadableStream<Uint8Array>;
  /** When stdout last moved; now while the reader holds it paused (a slow client is not a stalled source). */
  lastMoved(): number;
  /** Ends the stream, once: closes it, or errors it with `failure`. */
  end(failure: ApiError | null): void;
  /** Takes no more bytes, leaving the stream as it is (its reader cancelled it). */
  stop(): void;
}

export interface OutputEvents {
  /** The first byte is queued (told a turn of the event loop later, see below). */
  firstByte(): void;
  /** The child must be ended: its output passed `maxBytes` or `readOutput` failed it (with the error), or the reader cancelled (null). */
  stop(reason: ApiError | null): void;
}

export function childOutput(
  child: SpawnedChild,
  options: {
    highWaterMark?: number;
    maxBytes?: number;
    onBytes?: (count: number) => void;
    readOutput?: (chunk: Uint8Array) => ApiError | undefined;
  },
  events: OutputEvents,
): ChildOutput {
  let closed = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let lastOutput = Date.now();
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: () => child.resumeStdout(),
      cancel: () => events.stop(null),
    },
    { highWaterMark: options.highWaterMark ?? 256 * 1024, size: (chunk) => chunk.byteLength },
  );
  child.onStdout((chunk) => {
    if (closed) return;
    sent += chunk.byteLength;
    lastOutput = Date.now();
    if (options.maxBytes !== undefined && sent > options.maxBytes) {
      return events.stop(
        new ApiError("file_too_large", `The file is larger than the ${options.maxBytes} bytes this server sends.`),
      );
    }
    const failure = options.readOutput?.(chunk);
    if (failure) return events.stop(failure);
    options.onBytes?.(chunk.byteLength);
    // The head goes out at the first byte; a sign in the log written just before it (a tool logs
    // a broken input, then writes what it has) must still turn the answer into an error. Log and
    // output come on two pipes, so the log is given until the next turn of the event loop.
    if (sent === chunk.byteLength) setTimeout(events.firstByte, 0);
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) child.pauseStdout();
  });
  return {
    stream,
    lastMoved() {
      if (child.stdoutPaused()) lastOutput = Date.now();
      return lastOutput;
    },
    end(failure) {
      if (closed) return;
      closed = true;
      if (failure) controller.error(failure);
      else controller.close();
    },
    stop: () => void (closed = true),
  };
}
