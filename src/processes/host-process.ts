// One started extraction host (extraction-host/host.py): its process, the jobs it runs by id, and
// the messages between them. When to start one, and what to do when it ends, is the
// supervisor's (extraction-host.ts).
import childModule from "../../extraction-host/child.py?raw";
import chooserModule from "../../extraction-host/chooser.py?raw";
import hostProgram from "../../extraction-host/host.py?raw";
import poolModule from "../../extraction-host/pool.py?raw";
import warmupModule from "../../extraction-host/warmup.py?raw";
import workerModule from "../../extraction-host/worker.py?raw";
import { upstreamFailed } from "../http/problem.ts";
import type { Logger } from "../log.ts";
import { cancelled, spawnWatched, timedOut } from "./child-stream.ts";
import {
  type ExtractionJob,
  type ExtractionOutput,
  type ExtractionTool,
  maxExtractionOutputBytes,
  oversizedOutput,
  readExtractionLog,
  unlessMemoryExceeded,
} from "./extractor.ts";
import { createJsonLinesReader, type MalformedLine } from "./json-lines.ts";
import { childLog } from "./child-log.ts";
import type { ProcessHost } from "./process-host.ts";

export interface HostReady {
  pid: number;
  versions: Record<ExtractionTool, string | null>;
  warmMs: number;
  rssBytes: number;
}

/** A job's messages: its log as it comes, then one answer. */
interface HostMessage {
  id?: number;
  ready?: HostReady;
  stale?: boolean;
  oversized?: boolean;
  /** The job's process could not be started, or its message not read. */
  error?: string;
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
  rssBytes?: number;
}

export interface HostCommand {
  program: string;
  interpreter: string[];
  /** Whether the host imports gallery-dl (its program has yt-dlp's interpreter). */
  galleryDl: boolean;
  /** The kernel's ceiling on each job's heap; undefined: none. */
  maxMemoryBytes?: number;
  /** The yt-dlp options a job may carry and still share a worker with others (the host's pool.py). */
  workerOptions: WorkerOptions;
}

/** Options a job may carry into a worker: flags, and options followed by one value. */
export interface WorkerOptions {
  flags: readonly string[];
  valued: readonly string[];
}

export interface HostProcessEvents {
  onReady(ready: HostReady): void;
  /** A tool changed on disk: this host runs nothing more. */
  onStale(): void;
  onRss(rssBytes: number): void;
  /** The process has ended; `stderr` is the end of its own log (a traceback when it could not start). */
  onExit(end: { code: number | null; error?: Error; stderr: string }): void;
}

export interface HostProcess {
  ready: boolean;
  retiring: boolean;
  /** The job's answer; "stale" when the host would not run it (a tool changed on disk). */
  submit(job: ExtractionJob): Promise<ExtractionOutput | "stale">;
  /** Runs no new job and ends once its jobs have. */
  retire(): void;
  /** Ends the host now: it kills its jobs' children and exits. */
  end(): void;
  /** Resolves once the process has ended. */
  exited: Promise<void>;
}

interface PendingJob {
  log(text: string): void;
  answer(message: HostMessage): void;
  fail(error: Error): void;
}

const stderrLimit = 4 * 1024;

// The host's program and its modules are bundled as text and read by Python from the first bytes
// of the pipe, as one JSON object (name -> source, the modules in the order they import each other),
// so it runs from any install (only dist/ is shipped) and nothing is written to disk for it.
const hostSources = JSON.stringify({
  child: childModule,
  warmup: warmupModule,
  chooser: chooserModule,
  worker: workerModule,
  pool: poolModule,
  host: hostProgram,
});
const hostBytes = new TextEncoder().encode(hostSources);
const LOADER = `import json, os, sys, types
size, data = int(sys.argv[1]), b""
while len(data) < size:
    chunk = os.read(0, size - len(data))
    if not chunk:
        sys.exit("no program on stdin")
    data += chunk
sys.argv[1:2] = []
sources = json.loads(data)
program = sources.pop("host")
for name, source in sources.items():
    module = sys.modules[name] = types.ModuleType(name)
    exec(compile(source, f"extraction-host/{name}.py", "exec"), module.__dict__)
exec(compile(program, "extraction-host/host.py", "exec"), {"__name__": "__main__"})`;

function hostArgs(command: HostCommand): string[] {
  const [, ...interpreterArgs] = command.interpreter;
  return [
    ...interpreterArgs,
    ...[
      "-c",
      LOADER,
      String(hostBytes.byteLength),
      "--program",
      command.program,
      "--max-stdout",
      String(maxExtractionOutputBytes),
    ],
    ...(command.maxMemoryBytes === undefined ? [] : ["--max-memory", String(command.maxMemoryBytes)]),
    ...(command.galleryDl ? [] : ["--without-gallery-dl"]),
    ...[
      "--worker-options",
      JSON.stringify({ flags: command.workerOptions.flags, valued: command.workerOptions.valued }),
    ],
  ];
}

/** The id a line that is no JSON begins with, when it does (the host writes `{"id": n, ...}`). */
const idOfMalformed = (line: string) => Number(/^\{"id": (\d+)[,}]/.exec(line)?.[1] ?? Number.NaN);

export function startHostProcess(
  processes: ProcessHost,
  command: HostCommand,
  events: HostProcessEvents,
  log: Logger | undefined,
): HostProcess {
  const child = spawnWatched(processes, command.interpreter[0]!, hostArgs(command), true);
  let stderr = "";
  let resolveExited!: () => void;
  const exited = new Promise<void>((resolve) => (resolveExited = resolve));
  child.writeStdin(hostSources);

  const jobs = createJobTable({
    send: (message) => child.writeStdin(`${JSON.stringify(message)}\n`),
    maxMemoryBytes: command.maxMemoryBytes,
    onIdle: () => host.retiring && child.endStdin(""),
  });
  const host: HostProcess = {
    ready: false,
    retiring: false,
    submit: (job) => jobs.submit(job),
    retire() {
      host.retiring = true;
      if (jobs.size() === 0) child.endStdin("");
    },
    end: () => child.endStdin(""),
    exited,
  };

  // A message that cannot be read fails the job it names, never the host.
  const onMalformed = ({ line, error }: MalformedLine) => {
    log?.error("the extraction host wrote a message that cannot be read", {
      line: line.slice(0, 200),
      error: String(error),
    });
    jobs.fail(idOfMalformed(line), upstreamFailed("The media tool's answer could not be read; try again."));
  };
  const onMessage = (value: unknown) => {
    const message = (typeof value === "object" && value !== null ? value : {}) as HostMessage;
    if (message.ready) {
      host.ready = true;
      events.onReady(message.ready);
    } else if (message.id !== undefined) jobs.onMessage(message.id, message);
    else if (message.stale) events.onStale();
    if (typeof message.rssBytes === "number") events.onRss(message.rssBytes);
  };
  child.onStdout(createJsonLinesReader(onMessage, onMalformed));
  child.onStderr((text) => (stderr = (stderr + text).slice(-stderrLimit)));
  const onExit = (code: number | null, error?: Error) => {
    resolveExited();
    jobs.failAll(upstreamFailed("The media tool stopped unexpectedly; try again."));
    events.onExit({ code, error, stderr });
  };
  child.onClose((code) => onExit(code));
  child.onError((error) => onExit(null, error));
  return host;
}

/** The jobs one host runs, by id: each collects its log's excerpt until its answer comes. */
function createJobTable(options: { send(message: object): void; maxMemoryBytes: number | undefined; onIdle(): void }) {
  const pending = new Map<number, PendingJob>();
  let nextId = 0;

  function submit(job: ExtractionJob): Promise<ExtractionOutput | "stale"> {
    const id = ++nextId;
    // The job's log, read as the tool's own program's is: the same excerpt, the same lines kept.
    const log = childLog(readExtractionLog, () => {});
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        job.signal?.removeEventListener("abort", onAbort);
        pending.delete(id);
        if (pending.size === 0) options.onIdle();
      };
      // The host kills the child and its group; the host lives on.
      const stop = (error: Error) => {
        options.send({ cancel: id });
        settle();
        reject(error);
      };
      const timer = setTimeout(() => stop(timedOut(job.timeoutMs)), job.timeoutMs);
      const onAbort = () => stop(cancelled());
      pending.set(id, {
        log: (text) => log.append(text),
        answer(message) {
          settle();
          log.flush();
          try {
            resolve(answerOf(message, log.text(), options.maxMemoryBytes));
          } catch (error) {
            reject(error);
          }
        },
        fail(error) {
          settle();
          reject(error);
        },
      });
      if (job.signal?.aborted) return onAbort();
      job.signal?.addEventListener("abort", onAbort, { once: true });
      options.send({
        id,
        tool: job.tool,
        args: job.args,
        ...(job.stdin === undefined ? {} : { stdin: job.stdin }),
        // A job's run: its own child, niced (a worker's threads serve interactive calls too).
        ...(job.niceness ? { nice: job.niceness } : {}),
      });
    });
  }

  return {
    submit,
    size: () => pending.size,
    /** A job's log comes in messages of `stderr` alone; any other message is its answer. */
    onMessage(id: number, message: HostMessage) {
      const job = pending.get(id);
      if (job && typeof message.stderr === "string" && Object.keys(message).length === 2) job.log(message.stderr);
      else job?.answer(message);
    },
    fail: (id: number, error: Error) => pending.get(id)?.fail(error),
    failAll(error: Error) {
      for (const job of pending.values()) job.fail(error);
    },
  };
}

/** What a job's answer means: its output, "stale", or the failure it says (thrown). */
function answerOf(
  message: HostMessage,
  stderr: string,
  maxMemoryBytes: number | undefined,
): ExtractionOutput | "stale" {
  if (message.stale) return "stale";
  if (message.oversized) throw oversizedOutput();
  if (typeof message.error === "string") {
    throw upstreamFailed(`The media tool could not be started (${message.error}); try again.`);
  }
  if (message.exitCode === undefined || (message.exitCode === 0 && typeof message.stdout !== "string")) {
    throw upstreamFailed("The media tool's answer could not be read; try again.");
  }
  // As from the CLI extractor: a failed run's stdout (yt-dlp's `null`) is no output.
  const output = { exitCode: message.exitCode, stdout: message.exitCode === 0 ? message.stdout! : "", stderr };
  return unlessMemoryExceeded(output, maxMemoryBytes);
}
