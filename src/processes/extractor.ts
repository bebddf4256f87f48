// The one seam every extraction passes through: a media tool (yt-dlp for video and audio,
// gallery-dl for photos) run with a command line, to its end, for its output. What the output
// means (a description, or a failure to classify from the tool's log) is the caller's; how the
// tool is run (a process per request here, or a child of the warm resident host) is the
// extractor's, so the callers do not change with it.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { spawnStream } from "./child-stream.ts";
import type { ProcessHost } from "./process-host.ts";

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
}

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
   * oversized output, a tool that could not be started.
   */
  run(job: ExtractionJob): Promise<ExtractionOutput>;
}

// A YouTube page's info is ~0.5 MB; far more means something is wrong.
export const maxExtractionOutputBytes = 32 * 1024 * 1024;
export const oversizedOutput = () => upstreamFailed("The media tool returned an oversized description of this link.");

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    if (bytes > maxExtractionOutputBytes) {
      await reader.cancel().catch(() => {});
      throw oversizedOutput();
    }
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}

/** How yt-dlp (`ERROR: ...`) and gallery-dl (`[...][error] ...`) begin a line that says why they failed. */
const errorLine = /^ERROR:|\[error\]/;

/** The extractor that starts the tool's program for every job (under the watchdog of child-stream.ts). */
export function createCliExtractor(processes: ProcessHost, paths: Readonly<Record<ExtractionTool, string>>): Extractor {
  return {
    async run(job) {
      // child-stream errors the stream with what `classify` makes of a failed exit; here that is
      // a marker of this run, so a tool's own failure comes back as output for the caller to classify.
      const failedExit = new ApiError("tool_exited", "The media tool failed.");
      let exitCode: number | null = null;
      const child = spawnStream(processes, paths[job.tool], job.args, {
        classify: (code) => {
          exitCode = code;
          return failedExit;
        },
        // The lines a failure is classified by, kept in the log's excerpt wherever they come.
        readLog: (line) => (errorLine.test(line) ? "keep" : undefined),
        timeoutMs: job.timeoutMs,
        signal: job.signal,
        stdin: job.stdin,
      });
      try {
        return { exitCode: 0, stdout: await readText(child.stdout), stderr: child.stderr() };
      } catch (error) {
        if (error === failedExit) return { exitCode, stdout: "", stderr: child.stderr() };
        throw error;
      }
    },
  };
}
