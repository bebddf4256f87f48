// A child process as a Web stream: stdout becomes a ReadableStream with backpressure, and the
// exit code decides whether the stream ends or errors. ffmpeg exits 0 on many failures and
// headers go out before it ends, so a failure after the first byte must abort the body: the
// client then sees a broken transfer, never a short file that looks complete.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { createLineReader, createLogExcerpt } from "./log-excerpt.ts";
import type { ProcessHost, SpawnedChild } from "./process-host.ts";

export interface SpawnStreamOptions {
  /** Turns a non-zero exit into the error the stream (or firstChunk) fails with; `stderr` is the log's excerpt. */
  classify: (exitCode: number | null, stderr: string) => ApiError;
  /** For tools that exit 0 on some failures: reads the log's excerpt of a clean exit. */
  failedDespiteExit0?: (stderr: string) => boolean;
  /**
   * Told every line of the tool's log as it comes, all of it: a sign of trouble may be anywhere in
   * a long log, and only the log's excerpt is kept. "keep" puts the line into the excerpt wherever
   * it is; an ApiError means the run has failed, and the tool is ended at once with that error.
   */
  readLog?: (line: string) => ApiError | "keep" | undefined;
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
   * Kills the child (504) when its stdout has not moved for `timeoutMs`, whether its source (the
   * time `lastSourceByte` gives) went silent or keeps sending to no effect (a tool that reconnects
   * in a loop). Time the reader holds stdout paused does not count: a slow client is not a stalled
   * download.
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

// What a child needs to run (yt-dlp's and Deno's caches included), and nothing else: no DATABASE_URL, no tokens, and no proxy
// variables: the egress gate is the children's only way out, and a `no_proxy` would let them
// around it.
const passedToChildren = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "XDG_CACHE_HOME", "DENO_DIR"];

function childEnv(env: ProcessHost["env"]): Record<string, string> {
  return Object.fromEntries(passedToChildren.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

/**
 * Runs the tool under a POSIX shell that watches the service: the child leads a process group of
 * its own (so a kill reaches the helpers it starts), which also means nothing ends it when the
 * service is killed with SIGKILL. A watcher in the group checks every second that the service's
 * pid still runs, and when it does not, kills the whole group. A SIGTERM to the group (how the
 * service ends a tool) does not end the watcher: it then kills the group a second later itself,
 * so a tool that ignores SIGTERM is gone even when the service dies before its own SIGKILL would
 * follow. The watcher is a shell of its own, with a command line that names the service and not
 * the tool's arguments. It is all plain `sh`, so it works the same under Node, Bun and Deno
 * without native code. The tool gets the shell's stdin explicitly (a background job would
 * otherwise read /dev/null), its exit code is passed on, and a death by a signal is passed on as
 * that signal.
 */
export const WATCHDOG_NAME = "media-api-watchdog";
const WATCHER = `stop=; trap "stop=1" TERM
while kill -0 "$1" 2>/dev/null; do [ -n "$stop" ] && { sleep 1; break; }; sleep 1; done
kill -s KILL 0`;
const WATCHDOG = `service=$1; shift
exec 4<&0
"$@" <&4 4<&- &
tool=$!
exec 4<&-
/bin/sh -c '${WATCHER}' media-api-watcher "$service" </dev/null >/dev/null 2>&1 &
watcher=$!
wait "$tool"; code=$?
kill -s KILL "$watcher" 2>/dev/null
[ "$code" -gt 128 ] && kill -$((code - 128)) $$
exit "$code"`;

/** Starts `command` under the watchdog, with the children's environment. */
export function spawnWatched(processes: ProcessHost, command: string, args: readonly string[], stdin: boolean): SpawnedChild {
  return processes.spawn("/bin/sh", ["-c", WATCHDOG, WATCHDOG_NAME, String(processes.pid), command, ...args], { stdin, env: childEnv(processes.env) });
}

export const timedOut = (timeoutMs: number) =>
  new ApiError("upstream_timeout", `The source took longer than ${Math.round(timeoutMs / 1000)} s; try again later or pick a smaller format.`);

// 499 as nginx uses it: nobody is left to read the answer, so its status hardly matters.
export const cancelled = () => new ApiError("client_closed", "The download was cancelled.");

export function spawnStream(processes: ProcessHost, command: string, args: readonly string[], options: SpawnStreamOptions): ChildStream {
  const child = spawnWatched(processes, command, args, options.stdin !== undefined);
  if (options.stdin !== undefined) child.endStdin(options.stdin);

  const log = createLogExcerpt();
  const lines = createLineReader((line) => readLine(line));
  child.onStderr((text) => {
    log.append(text);
    if (options.readLog) lines.push(text);
  });
  const readLine = (line: string) => {
    const meaning = options.readLog!(line);
    if (meaning === "keep") log.keep(line);
    else if (meaning instanceof ApiError) {
      log.keep(line);
      kill(meaning);
    }
  };

  let streamClosed = false;
  let streamController!: ReadableStreamDefaultController<Uint8Array>;
  const endStream = (failure: ApiError | null) => {
    if (streamClosed) return;
    streamClosed = true;
    if (failure) streamController.error(failure);
    else streamController.close();
  };

  let stopReason: ApiError | null = null;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  /** `reason` errors the stream; null when the stream's reader itself cancelled. */
  const kill = (reason: ApiError | null) => {
    stopReason ??= reason;
    if (reason) {
      endStream(reason);
      rejectFirst(reason);
    }
    streamClosed = true;
    // A paused stdout holds back "close", and with it `exited`, until someone reads it.
    child.resumeStdout();
    // The child leads its own process group, so helpers it started (yt-dlp runs ffmpeg) end too.
    // The group is signalled even when its leader (the watchdog's shell) is gone already: a tool
    // that lingers after SIGTERM still gets the SIGKILL.
    child.signalGroup("SIGTERM");
    killTimer ??= setTimeout(() => child.signalGroup("SIGKILL"), killGraceMs);
  };

  const timer = options.timeoutMs ? setTimeout(() => kill(timedOut(options.timeoutMs!)), options.timeoutMs) : undefined;

  let lastOutput = Date.now();
  const idle = options.idle;
  const idleTimer = idle
    ? setInterval(() => {
        if (child.stdoutPaused()) lastOutput = Date.now();
        const now = Date.now();
        if (now - lastOutput < idle.timeoutMs) return;
        const seconds = Math.round(idle.timeoutMs / 1000);
        kill(
          now - idle.lastSourceByte() >= idle.timeoutMs
            ? new ApiError("upstream_timeout", `The source sent nothing for ${seconds} s; try again later.`)
            : new ApiError("no_progress", `The source kept sending, but nothing of the file came out of it for ${seconds} s; try again later.`),
        );
      }, Math.min(1000, idle.timeoutMs / 4))
    : undefined;

  let resolveFirst!: () => void;
  let rejectFirst!: (error: unknown) => void;
  const firstChunk = new Promise<void>((resolve, reject) => [resolveFirst, rejectFirst] = [resolve, reject]);
  firstChunk.catch(() => {}); // the caller may only look at the stream

  const stdout = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        streamController = controller;
      },
      pull() {
        child.resumeStdout();
      },
      cancel() {
        kill(null);
      },
    },
    { highWaterMark: options.highWaterMark ?? 256 * 1024, size: (chunk) => chunk.byteLength },
  );

  const onAbort = () => kill(cancelled());
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  let sent = 0;
  child.onStdout((chunk) => {
    if (streamClosed) return;
    sent += chunk.byteLength;
    lastOutput = Date.now();
    if (options.maxBytes !== undefined && sent > options.maxBytes) {
      kill(new ApiError("file_too_large", `The file is larger than the ${options.maxBytes} bytes this server sends.`));
      return;
    }
    options.onBytes?.(chunk.byteLength);
    // The head goes out at the first byte; a sign in the log written just before it (a tool logs
    // a broken input, then writes what it has) must still turn the answer into an error. Log and
    // output come on two pipes, so the log is given until the next turn of the event loop.
    if (sent === chunk.byteLength) setTimeout(resolveFirst, 0);
    streamController.enqueue(chunk);
    if ((streamController.desiredSize ?? 0) <= 0) child.pauseStdout();
  });

  const exited = new Promise<number | null>((resolve) => {
    let done = false;
    const finish = (code: number | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      // The log's last line, if it had no newline, may still end the run as a failure.
      if (options.readLog) lines.end();
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearInterval(idleTimer);
      options.signal?.removeEventListener("abort", onAbort);
      const stderrText = log.text();
      const failure =
        stopReason ??
        (spawnError
          ? upstreamFailed(`The media tool could not be started (${spawnError.message}).`, { cause: spawnError })
          : code === 0 && !options.failedDespiteExit0?.(stderrText)
            ? null
            : options.classify(code, stderrText));
      if (failure) rejectFirst(failure);
      else resolveFirst();
      endStream(failure);
      resolve(code);
    };
    // "close" comes after stdout has ended, so every byte is queued before the stream closes.
    child.onClose((code) => {
      // The watchdog's shell says so when it could not run the tool: that is a spawn failure.
      const stderrText = log.text();
      const unstarted = (code === 126 || code === 127) && stderrText.startsWith(`${WATCHDOG_NAME}:`);
      if (unstarted) finish(null, new Error(stderrText.trim().split("\n")[0]!.slice(WATCHDOG_NAME.length + 2)));
      else finish(code);
    });
    child.onError((error) => finish(null, error));
  });

  return { pid: child.pid ?? -1, stdout, firstChunk, exited, stderr: () => log.text(), kill: () => kill(cancelled()) };
}
