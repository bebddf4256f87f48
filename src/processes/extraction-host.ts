// The extractor that runs every extraction in a child of one resident Python process (the
// extraction host, extraction-host/host.py), which keeps yt-dlp and gallery-dl imported and warm:
// a page's description then takes tens of milliseconds instead of a new program's second. Each
// job still gets a process of its own (a fork), so nothing of one job reaches another.
//
// The host is started with the interpreter yt-dlp's own program names in its `#!` line, so it
// imports the yt-dlp that `YTDLP_PATH` runs. Where there is no host (EXTRACTION_HOST=off, a
// standalone yt-dlp binary, a host that cannot start or is starting again) every job runs the
// tool's program, as the CLI extractor does. A host that dies fails its jobs in flight at once
// (502) and is started again; one whose tools changed on disk is replaced by a new one.
import hostProgram from "../../extraction-host/host.py?raw";
import { upstreamFailed } from "../http/problem.ts";
import type { Logger } from "../log.ts";
import { cancelled, spawnWatched, timedOut } from "./child-stream.ts";
import { maxExtractionOutputBytes, oversizedOutput, type ExtractionJob, type ExtractionOutput, type ExtractionTool, type Extractor } from "./extractor.ts";
import type { ProcessHost, SpawnedChild } from "./process-host.ts";
import type { ToolRuns } from "./tools.ts";

export type HostStatus =
  | { state: "ready"; pid: number; versions: Record<ExtractionTool, string | null>; rssBytes: number }
  /** Not in use (yet): every job runs the tool's program; `reason` says why. */
  | { state: "off" | "starting" | "unavailable"; reason: string };

export interface ExtractionHost extends Extractor {
  /** Starts the host (with EXTRACTION_HOST=on); until it is ready, and without it, jobs run the CLI. */
  start(log: Logger): void;
  /** Ends the host and its children. */
  close(): Promise<void>;
  status(): HostStatus;
}

export interface ExtractionHostOptions {
  processes: ProcessHost;
  /** For reading the `#!` lines of the tools' programs. */
  toolRuns: ToolRuns;
  ytdlpPath: string;
  /** gallery-dl's jobs run in the host when its program has yt-dlp's interpreter, else its program runs. */
  galleryDlPath: string;
  /** Runs the jobs the host cannot take. */
  cli: Extractor;
  enabled: boolean;
  /** Told every change of status and every new RSS figure (metrics). */
  onStatus?: (status: HostStatus) => void;
}

/**
 * The interpreter and its one optional argument from a script's first line, as the kernel reads
 * it (`#!/usr/bin/python3`, `#! /usr/bin/env python3`); null when the program is no script.
 */
export function interpreterOf(header: string): string[] | null {
  if (!header.startsWith("#!")) return null;
  const line = header.slice(2).split("\n")[0]!.trim();
  const space = line.search(/\s/);
  if (line === "") return null;
  return space === -1 ? [line] : [line.slice(0, space), line.slice(space).trim()];
}

// Prints where YTDLP_PATH resolves on PATH, then the start of that file.
const READ_HEADER = 'p=$(command -v -- "$1") && printf "%s\\n" "$p" && head -c 256 -- "$p"';

/** The program's path and the interpreter its `#!` line names, or why there is none. */
export async function findInterpreter(toolRuns: ToolRuns, path: string): Promise<{ program: string; interpreter: string[] } | { reason: string }> {
  const run = await toolRuns.run("/bin/sh", ["-c", READ_HEADER, "sh", path], 5_000);
  if (!("stdout" in run)) return { reason: `${path} was not found` };
  const newline = run.stdout.indexOf("\n");
  const program = run.stdout.slice(0, newline);
  const interpreter = interpreterOf(run.stdout.slice(newline + 1));
  if (interpreter === null) return { reason: `${program} is not a Python script (a standalone build?), so its yt-dlp cannot be imported` };
  return { program, interpreter };
}

// The host's program is bundled as text and read by Python from the first bytes of the pipe, so
// it runs from any install (only dist/ is shipped) and nothing is written to disk for it.
const hostBytes = new TextEncoder().encode(hostProgram);
const LOADER = `import os, sys
size, source = int(sys.argv[1]), b""
while len(source) < size:
    chunk = os.read(0, size - len(source))
    if not chunk:
        sys.exit("no program on stdin")
    source += chunk
sys.argv[1:2] = []
exec(compile(source, "extraction-host/host.py", "exec"), {"__name__": "__main__"})`;

interface HostMessage {
  id?: number;
  ready?: { pid: number; versions: Record<ExtractionTool, string | null>; warmMs: number; rssBytes: number };
  stale?: boolean;
  oversized?: boolean;
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
  rssBytes?: number;
}

/** One started host process: the jobs it runs, by id, each waiting for its answer. */
interface Generation {
  child: SpawnedChild;
  ready: boolean;
  retiring: boolean;
  pending: Map<number, { answer(message: HostMessage): void; fail(error: Error): void }>;
  exited: Promise<void>;
  /** The end of the host's own log (a traceback when it could not start). */
  stderr: string;
}

/** Restarts of a host that died soon after starting wait longer each time, up to this. */
const maxRestartDelayMs = 5 * 60_000;
const stderrLimit = 4 * 1024;

export function createExtractionHost(options: ExtractionHostOptions): ExtractionHost {
  let status: HostStatus = options.enabled
    ? { state: "starting", reason: "not started yet" }
    : { state: "off", reason: "EXTRACTION_HOST=off" };
  const setStatus = (next: HostStatus) => {
    status = next;
    options.onStatus?.(next);
  };
  let log: Logger | undefined;
  let command: { program: string; interpreter: string[]; galleryDl: boolean } | undefined;
  let current: Generation | undefined;
  const generations = new Set<Generation>();
  let closing = false;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let restartDelayMs = 1_000;
  let nextId = 0;

  const send = (generation: Generation, message: object) => generation.child.writeStdin(`${JSON.stringify(message)}\n`);

  function retire(generation: Generation) {
    generation.retiring = true;
    if (generation.pending.size === 0) generation.child.endStdin("");
  }

  function launch() {
    const [interpreter, ...interpreterArgs] = command!.interpreter;
    const child = spawnWatched(
      options.processes,
      interpreter!,
      [
        ...interpreterArgs,
        ...["-c", LOADER, String(hostBytes.byteLength), "--program", command!.program, "--max-stdout", String(maxExtractionOutputBytes)],
        ...(command!.galleryDl ? [] : ["--without-gallery-dl"]),
      ],
      true,
    );
    const startedAt = Date.now();
    let resolveExited!: () => void;
    const generation: Generation = { child, ready: false, retiring: false, pending: new Map(), exited: new Promise((resolve) => (resolveExited = resolve)), stderr: "" };
    generations.add(generation);
    current = generation;
    child.writeStdin(hostProgram);

    child.onStderr((text) => (generation.stderr = (generation.stderr + text).slice(-stderrLimit)));
    // One JSON message per line; a line may span many chunks (a description of megabytes).
    const decoder = new TextDecoder();
    let parts: string[] = [];
    child.onStdout((chunk) => {
      let text = decoder.decode(chunk, { stream: true });
      for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n")) {
        parts.push(text.slice(0, newline));
        const line = parts.join("");
        parts = [];
        let message: HostMessage;
        try {
          message = JSON.parse(line) as HostMessage;
        } catch {
          // Not the host's protocol: end it rather than guess; it is started again.
          log?.error("the extraction host wrote something that is not a message; ending it", { line: line.slice(0, 200) });
          child.signalGroup("SIGKILL");
          return;
        }
        onMessage(generation, message);
        text = text.slice(newline + 1);
      }
      if (text) parts.push(text);
    });
    const onExit = (code: number | null, error?: Error) => {
      generations.delete(generation);
      resolveExited();
      const failure = upstreamFailed("The media tool stopped unexpectedly; try again.");
      for (const job of generation.pending.values()) job.fail(failure);
      if (generation !== current || closing) return;
      current = undefined;
      const lived = Date.now() - startedAt;
      restartDelayMs = generation.ready && lived > 60_000 ? 1_000 : Math.min(restartDelayMs * 2, maxRestartDelayMs);
      const reason = error?.message ?? (generation.stderr.trim().split("\n").pop() || `exit ${code}`);
      setStatus({ state: "unavailable", reason: `the extraction host ${generation.ready ? "stopped" : "could not start"} (${reason}); starting it again` });
      log?.warn(`extraction host ${generation.ready ? "stopped" : "could not start"}: extractions start the tool's program until it runs again`, {
        code,
        stderr: generation.stderr.slice(-1000),
        retryInMs: restartDelayMs,
      });
      restartTimer = setTimeout(launch, restartDelayMs);
    };
    child.onClose((code) => onExit(code));
    child.onError((error) => onExit(null, error));
  }

  function onMessage(generation: Generation, message: HostMessage) {
    if (message.ready) {
      generation.ready = true;
      const { pid, versions, warmMs, rssBytes } = message.ready;
      setStatus({ state: "ready", pid, versions, rssBytes });
      log?.info("extraction host ready: extractions run in forks of a warm process", { pid, versions, warmMs, rssMB: Math.round(rssBytes / 2 ** 20) });
    } else if (message.id !== undefined) {
      generation.pending.get(message.id)?.answer(message);
    } else if (message.stale && generation === current) {
      log?.info("yt-dlp or gallery-dl changed on disk: starting a new extraction host");
      setStatus({ state: "starting", reason: "a tool changed on disk" });
      retire(generation);
      launch();
    }
    if (message.rssBytes !== undefined && status.state === "ready" && generation === current) setStatus({ ...status, rssBytes: message.rssBytes });
  }

  /** The job's answer from the host; "stale" when the host would not run it (a tool changed on disk). */
  function submit(generation: Generation, job: ExtractionJob): Promise<ExtractionOutput | "stale"> {
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        job.signal?.removeEventListener("abort", onAbort);
        generation.pending.delete(id);
        if (generation.retiring && generation.pending.size === 0) generation.child.endStdin("");
      };
      // The host kills the child and its group; the host lives on.
      const stop = (error: Error) => {
        send(generation, { cancel: id });
        settle();
        reject(error);
      };
      const timer = setTimeout(() => stop(timedOut(job.timeoutMs)), job.timeoutMs);
      const onAbort = () => stop(cancelled());
      generation.pending.set(id, {
        answer(message) {
          settle();
          if (message.stale) resolve("stale");
          else if (message.oversized) reject(oversizedOutput());
          // As from the CLI extractor: a failed run's stdout (yt-dlp's `null`) is no output.
          else resolve({ exitCode: message.exitCode ?? null, stdout: message.exitCode === 0 ? message.stdout! : "", stderr: message.stderr ?? "" });
        },
        fail(error) {
          settle();
          reject(error);
        },
      });
      if (job.signal?.aborted) return onAbort();
      job.signal?.addEventListener("abort", onAbort, { once: true });
      send(generation, { id, tool: job.tool, args: job.args, ...(job.stdin === undefined ? {} : { stdin: job.stdin }) });
    });
  }

  options.onStatus?.(status);
  return {
    async run(job) {
      // gallery-dl's jobs only where the host could import the gallery-dl its program runs.
      const inHost = status.state === "ready" && status.versions[job.tool] !== null;
      const generation = inHost && current?.ready && !current.retiring ? current : undefined;
      const answer = generation ? await submit(generation, job) : "stale";
      return answer === "stale" ? options.cli.run(job) : answer;
    },
    start(logger) {
      log = logger;
      if (!options.enabled) {
        logger.info("extraction host off (EXTRACTION_HOST=off): every extraction starts the tool's program");
        return;
      }
      void Promise.all([findInterpreter(options.toolRuns, options.ytdlpPath), findInterpreter(options.toolRuns, options.galleryDlPath)]).then(([found, gallery]) => {
        if (closing) return;
        if ("reason" in found) {
          setStatus({ state: "unavailable", reason: found.reason });
          logger.warn("extraction host not used: every extraction starts the tool's program", { reason: found.reason });
          return;
        }
        // The same interpreter imports the same gallery-dl that its program runs.
        command = { ...found, galleryDl: "interpreter" in gallery && gallery.interpreter.join(" ") === found.interpreter.join(" ") };
        setStatus({ state: "starting", reason: "warming up" });
        launch();
      });
    },
    async close() {
      closing = true;
      clearTimeout(restartTimer);
      // A host whose stdin closes kills its children and exits.
      for (const generation of generations) generation.child.endStdin("");
      await Promise.all([...generations].map((generation) => generation.exited));
    },
    status: () => status,
  };
}

/** What /readyz says of the host: never a failure, since the CLI stands in for it. */
export function hostReadiness(host: ExtractionHost): { name: string; check: () => Promise<{ detail: string; warning?: string }> } {
  return {
    name: "extraction-host",
    check: async () => {
      const status = host.status();
      if (status.state === "ready") {
        const versions = Object.entries(status.versions).filter(([, version]) => version !== null).map(([tool, version]) => `${tool} ${version}`);
        return { detail: `in use: pid ${status.pid}, ${versions.join(", ")}, RSS ${Math.round(status.rssBytes / 2 ** 20)} MB` };
      }
      const detail = `not in use (${status.state}: ${status.reason}): every extraction starts the tool's program`;
      return status.state === "unavailable" ? { detail, warning: "extractions take about a second each without the extraction host" } : { detail };
    },
  };
}
