// The one seam every extraction passes through: a media tool (yt-dlp for video and audio,
// gallery-dl for photos) run with a command line, to its end, for its output. What the output
// means (a description, or a failure to classify from the tool's log) is the caller's; how the
// tool is run (a process per request here, or a child of the warm resident host) is the
// extractor's, so the callers do not change with it.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import type { LogMeaning } from "./child-log.ts";
import { spawnStream } from "./child-stream.ts";
import { WATCHDOG_NAME } from "./watchdog.ts";
import type { ProcessHost } from "./process-host.ts";
import { boundedText } from "../util/bounded-text.ts";

export type ExtractionTool = "yt-dlp" | "gallery-dl";

export interface ExtractionJob {
  tool: ExtractionTool;
  /** The tool's command-line arguments, as they would follow the program's name. */
  args: readonly string[];
  /** Text for the tool's standard input (yt-dlp's `--load-info-json -`); without it, none. */
  stdin?: string;
  /** Ends the run after this long: 504 `upstream_timeout`. */
  timeoutMs: number;
  /** Aborting ends the run, for example when the client went away: 499 `client_closed`. */
  signal?: AbortSignal;
  /**
   * For a job's run (src/jobs/), not an interactive caller's: how much lower than the service's
   * the tool's OS priority is (nice), so that the CPU goes to a caller who waits first. 0 or none: the same.
   */
  niceness?: number;
}

/** The extractor `extractor`, each of its runs a job's, at `niceness` (JOB_NICENESS). */
export const inBackground = (extractor: Extractor, niceness: number): Extractor => ({
  run: (job) => extractor.run({ ...job, niceness }),
});

export interface ExtractionOutput {
  /** 0 when the tool succeeded; what it exited with otherwise (null: ended by a signal). */
  exitCode: number | null;
  /** What the tool printed on stdout (its JSON); empty when it failed. */
  stdout: string;
  /**
   * The tool's log, from which a failure is classified; a long one as an excerpt of its start, its
   * error lines wherever they were, and its end.
   */
  stderr: string;
}

export interface Extractor {
  /**
   * Runs the job to its end. A tool that fails resolves with its exit code and log; rejects (with
   * an ApiError) only where the tool itself says nothing: its time cap, the caller's abort, an
   * oversized output, its memory ceiling, a tool that could not be started.
   */
  run(job: ExtractionJob): Promise<ExtractionOutput>;
}

// The biggest video page's info is ~0.5 MB; far more means something is wrong.
export const maxExtractionOutputBytes = 32 * 1024 * 1024;
export const oversizedOutput = () => upstreamFailed("The media tool returned an oversized description of this link.");

/** How yt-dlp (`ERROR: ...`) and gallery-dl (`[...][error] ...`) begin a line that says why they failed. */
const errorLine = /^ERROR:|\[error\]/;

/** The lines of a tool's log its excerpt keeps wherever they come: those a failure is classified by. */
export const readExtractionLog = (line: string): LogMeaning => (errorLine.test(line) ? "keep" : undefined);

/**
 * What the tools print when the kernel refused them memory past their ceiling: a MemoryError,
 * which has no message. yt-dlp reports it as a bare `ERROR: ` line, Python's own traceback ends
 * with `MemoryError`, gallery-dl's `-j` output holds it as an extractor's error. None of these can
 * be written by a page or a link (they would be quoted inside a line or a JSON string).
 */
const memorySigns = { log: /^(ERROR: ?|MemoryError\b.*)$/m, galleryOutput: /\[\s*-1,\s*\{\s*"error": "MemoryError"/ };

/** The output as it is, or 502 `memory_exceeded` when the tool ran out of its memory ceiling. */
export function unlessMemoryExceeded(output: ExtractionOutput, limitBytes: number | undefined): ExtractionOutput {
  const exceeded = output.exitCode === 0
    ? memorySigns.galleryOutput.test(output.stdout)
    : memorySigns.log.test(output.stderr);
  if (!exceeded || limitBytes === undefined) return output;
  throw new ApiError(
    "memory_exceeded",
    `Reading this link took more than the ${
      Math.round(limitBytes / 2 ** 20)
    } MB of memory this server gives one extraction.`,
  );
}

// Sets the tool's RLIMIT_DATA (`ulimit -d`, in KiB) and becomes the tool; named as the watchdog,
// so that a tool that cannot be run is still told apart from a tool's own failure.
const CAPPED_RUN = 'ulimit -d "$1" && shift && exec "$@"';

/** The command that runs `program` with at most `limitBytes` of heap (none: no ceiling), niced by `niceness`. */
function cappedCommand(
  program: string,
  args: readonly string[],
  limitBytes: number | undefined,
  niceness: number,
): [string, string[]] {
  const niced = niceness > 0 ? ["nice", "-n", String(niceness), program, ...args] : [program, ...args];
  if (limitBytes === undefined) return [niced[0]!, niced.slice(1)];
  return ["/bin/sh", ["-c", CAPPED_RUN, WATCHDOG_NAME, String(Math.floor(limitBytes / 1024)), ...niced]];
}

/**
 * The extractor that starts the tool's program for every job (under the watchdog of
 * child-stream.ts), with the kernel's ceiling of `memoryLimitBytes` on its heap.
 */
export function createCliExtractor(
  processes: ProcessHost,
  paths: Readonly<Record<ExtractionTool, string>>,
  memoryLimitBytes?: number,
): Extractor {
  return {
    async run(job) {
      // child-stream errors the stream with what `classify` makes of a failed exit; here that is
      // a marker of this run, so a tool's own failure comes back as output for the caller to classify.
      const failedExit = new ApiError("tool_exited", "The media tool failed.");
      let exitCode: number | null = null;
      const [command, args] = cappedCommand(paths[job.tool], job.args, memoryLimitBytes, job.niceness ?? 0);
      const child = spawnStream(processes, command, args, {
        classify: (code) => {
          exitCode = code;
          return failedExit;
        },
        readLog: readExtractionLog,
        timeoutMs: job.timeoutMs,
        signal: job.signal,
        stdin: job.stdin,
      });
      try {
        return unlessMemoryExceeded({
          exitCode: 0,
          stdout: await boundedText(child.stdout, maxExtractionOutputBytes, oversizedOutput),
          stderr: child.stderr(),
        }, memoryLimitBytes);
      } catch (error) {
        if (error === failedExit) {
          return unlessMemoryExceeded({ exitCode, stdout: "", stderr: child.stderr() }, memoryLimitBytes);
        }
        throw error;
      }
    },
  };
}
