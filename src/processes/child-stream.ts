// A child process as a Web stream: stdout becomes a ReadableStream with backpressure, and the
// exit code decides whether the stream ends or errors. ffmpeg exits 0 on many failures and
// headers go out before it ends, so a failure after the first byte must abort the body: the
// client then sees a broken transfer, never a short file that looks complete.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { childLog, type LogMeaning } from "./child-log.ts";
import { childOutput } from "./child-output.ts";
import type { ProcessHost, SpawnedChild } from "./process-host.ts";
import { notStarted, spawnWatched } from "./watchdog.ts";

export { spawnWatched } from "./watchdog.ts";

export interface SpawnStreamOptions {
  /** Turns a non-zero exit into the error the stream (or firstChunk) fails with; `stderr` is the log's excerpt. */
  classify: (exitCode: number | null, stderr: string) => ApiError;
  /** For tools that exit 0 on some failures: reads the log's excerpt of a clean exit. */
  failedDespiteExit0?: (stderr: string) => boolean;
  /**
   * Told every line of the tool's log as it comes (see child-log.ts); an ApiError ends the tool
   * at once with that error.
   */
  readLog?: (line: string) => LogMeaning;
  /**
   * Told every chunk of stdout before it is sent (a tool whose output shows what its log cannot,
   * such as how long the file is so far); an ApiError ends the tool at once with that error, and
   * the chunk is not sent.
   */
  readOutput?: (chunk: Uint8Array) => ApiError | undefined;
  /** Aborting kills the child, for example when the client goes away. */
  signal?: AbortSignal;
  /** Kills the child after this long. */
  timeoutMs?: number;
  /** Bytes of stdout held before the child is paused. */
  highWaterMark?: number;
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string;
  /** Stdout bytes allowed; past it the child is killed and the stream errors with 413. */
  maxBytes?: number;
  /** Told the size of every stdout chunk (for metrics). */
  onBytes?: (count: number) => void;
  /**
   * Kills the child (504) when neither its stdout nor its source (the time `lastSourceByte`
   * gives) has moved for `timeoutMs`. A source that keeps sending is not stalled, however long
   * its tool takes to make output of it (a slow source with keyframes far apart); a tool that
   * reconnects in a loop is its log reader's to end. Time the reader holds stdout paused does
   * not count: a slow client is not a stalled download.
   */
  idle?: { timeoutMs: number; lastSourceByte: () => number };
}

export interface ChildStream {
  pid: number;
  stdout: ReadableStream<Uint8Array>;
  /**
   * Settles before any body byte is sent: resolves at the first stdout byte (or at a clean
   * exit without output), rejects with the classified error when the child fails first.
   */
  firstChunk: Promise<void>;
  /** Exit code; null when the child was ended by a signal. */
  exited: Promise<number | null>;
  /** An excerpt of stderr of at most 8 KiB: its start, the lines `readLog` kept, and its end. */
  stderr: () => string;
  /** Ends the child: SIGTERM, then SIGKILL if it is still there a second later. */
  kill: () => void;
}

const killGraceMs = 1000;

export const timedOut = (timeoutMs: number) =>
  new ApiError(
    "upstream_timeout",
    `The source took longer than ${Math.round(timeoutMs / 1000)} s; try again later or pick a smaller format.`,
  );

// 499 as nginx uses it: nobody is left to read the answer, so its status hardly matters.
export const cancelled = () => new ApiError("client_closed", "The download was cancelled.");

const sourceSilent = (timeoutMs: number) =>
  new ApiError("upstream_timeout", `The source sent nothing for ${Math.round(timeoutMs / 1000)} s; try again later.`);

export function spawnStream(
  processes: ProcessHost,
  command: string,
  args: readonly string[],
  options: SpawnStreamOptions,
): ChildStream {
  const child = spawnWatched(processes, command, args, options.stdin !== undefined);
  if (options.stdin !== undefined) child.endStdin(options.stdin);
  const first = settleOnce();
  let stopReason: ApiError | null = null;
  /** Ends the child; `reason` errors the stream, null when the stream's reader itself cancelled. */
  const stop = (reason: ApiError | null) => {
    stopReason ??= reason;
    if (reason) {
      output.end(reason);
      first.reject(reason);
    } else output.stop();
    ending.start();
  };
  const output = childOutput(child, options, { firstByte: first.resolve, stop });
  const log = childLog(options.readLog, stop);
  child.onStderr(log.append);
  const ending = groupEnding(child);
  const unwatch = watch(options, output.lastMoved, stop);

  const exited = new Promise<number | null>((resolve) => {
    let done = false;
    const finish = (code: number | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      unwatch();
      ending.clear();
      const failure = stopReason ?? verdict(code, spawnError, log.text(), options);
      if (failure) first.reject(failure);
      else first.resolve();
      output.end(failure);
      resolve(code);
    };
    // "close" comes after stdout has ended, so every byte is queued before the stream closes.
    child.onClose((code) => {
      log.flush();
      const unstarted = notStarted(code, log.text());
      finish(unstarted ? null : code, unstarted ?? undefined);
    });
    child.onError((error) => finish(null, error));
  });

  return {
    pid: child.pid ?? -1,
    stdout: output.stream,
    firstChunk: first.promise,
    exited,
    stderr: log.text,
    kill: () => stop(cancelled()),
  };
}

/** The error a run ended with by itself, or null for a clean run. */
function verdict(
  code: number | null,
  spawnError: Error | undefined,
  stderr: string,
  options: SpawnStreamOptions,
): ApiError | null {
  if (spawnError) {
    return upstreamFailed(`The media tool could not be started (${spawnError.message}).`, { cause: spawnError });
  }
  if (code === 0 && !options.failedDespiteExit0?.(stderr)) return null;
  return options.classify(code, stderr);
}

/** firstChunk: settled once, by the first byte, the first failure or the exit. */
function settleOnce() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => [resolve, reject] = [res, rej]);
  promise.catch(() => {}); // the caller may only look at the stream
  return { promise, resolve, reject };
}

/**
 * Ends the child's process group: SIGTERM, and SIGKILL a second later. The group leads to the
 * helpers a tool started (yt-dlp runs ffmpeg), and is signalled even when its leader (the
 * watchdog's shell) is gone already: a tool that lingers after SIGTERM still gets the SIGKILL.
 */
function groupEnding(child: SpawnedChild) {
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  return {
    start() {
      // A paused stdout holds back "close", and with it `exited`, until someone reads it.
      child.resumeStdout();
      child.signalGroup("SIGTERM");
      killTimer ??= setTimeout(() => child.signalGroup("SIGKILL"), killGraceMs);
    },
    clear: () => clearTimeout(killTimer),
  };
}

/** The time cap, the idle cut and the abort signal, each ending the child; returns what stops watching. */
function watch(options: SpawnStreamOptions, lastMoved: () => number, stop: (reason: ApiError) => void): () => void {
  const { timeoutMs, idle, signal } = options;
  const timer = timeoutMs ? setTimeout(() => stop(timedOut(timeoutMs)), timeoutMs) : undefined;
  const idleTimer = idle
    ? setInterval(() => {
      if (Date.now() - Math.max(lastMoved(), idle.lastSourceByte()) >= idle.timeoutMs) {
        stop(sourceSilent(idle.timeoutMs));
      }
    }, Math.min(1000, idle.timeoutMs / 4))
    : undefined;
  const onAbort = () => stop(cancelled());
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  return () => {
    clearTimeout(timer);
    clearInterval(idleTimer);
    signal?.removeEventListener("abort", onAbort);
  };
}
