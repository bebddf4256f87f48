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
import type { Logger } from "../log.ts";
import type { ExtractionTool, Extractor } from "./extractor.ts";
import { type HostCommand, type HostProcess, startHostProcess, type WorkerOptions } from "./host-process.ts";
import type { ProcessHost } from "./process-host.ts";
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
  /** The kernel's ceiling on each job's heap (EXTRACT_MEMORY_MB); undefined: none. */
  maxMemoryBytes?: number;
  /** The yt-dlp options a job may carry into a shared worker (`workerOptions` of platforms/tools/ytdlp/run.ts). */
  workerOptions: WorkerOptions;
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
export async function findInterpreter(
  toolRuns: ToolRuns,
  path: string,
): Promise<{ program: string; interpreter: string[] } | { reason: string }> {
  const run = await toolRuns.run("/bin/sh", ["-c", READ_HEADER, "sh", path], 5_000);
  if (!("stdout" in run)) return { reason: `${path} was not found` };
  const newline = run.stdout.indexOf("\n");
  const program = run.stdout.slice(0, newline);
  const interpreter = interpreterOf(run.stdout.slice(newline + 1));
  if (interpreter === null) {
    return { reason: `${program} is not a Python script (a standalone build?), so its yt-dlp cannot be imported` };
  }
  // A shell script (a wrapper) names no Python that could import yt-dlp: starting it would fail for ever.
  if (!interpreter.some((part) => /(^|\/|\s)python[\d.]*(\s|$)/.test(part))) {
    return { reason: `${program} runs ${interpreter.join(" ")}, not Python, so its yt-dlp cannot be imported` };
  }
  return { program, interpreter };
}

/**
 * A host that could not start, or whose interpreter could not be found, is tried again after a
 * pause that doubles each time in a row, up to this: the programs run every job meanwhile, and a
 * host the operator mends (or a probe that failed on a busy machine) is in use again without a restart.
 */
const maxRetryDelayMs = 5 * 60_000;

function logReady(
  log: Logger | undefined,
  ready: { pid: number; versions: unknown; warmMs: number; rssBytes: number },
) {
  log?.info("extraction host ready: extractions run in its warm workers and forks", {
    pid: ready.pid,
    versions: ready.versions,
    warmMs: ready.warmMs,
    rssMB: Math.round(ready.rssBytes / 2 ** 20),
  });
}

/** How a host is started: found once the tools' interpreter is known. */
interface Launch {
  processes: ProcessHost;
  log: Logger;
  command: HostCommand;
}

/** Finds how to start a host now (the tools' programs may have changed since the last time), or why not. */
type FindLaunch = () => Promise<Launch | { reason: string; log: Logger }>;

/** Everything the supervisor holds, in one object one can read. */
export interface SupervisorState {
  find?: FindLaunch;
  launch?: Launch;
  /** The host new jobs go to, while it lives. */
  current?: HostProcess;
  /** Every host not yet ended: the current one, and those retiring or ending. */
  processes: Set<HostProcess>;
  closing: boolean;
  /** The next attempt to find and start a host, and how long it waits. */
  retryTimer?: ReturnType<typeof setTimeout>;
  retryDelayMs: number;
}

/** Why an ended host ended, in a few words: Python's last line, or its exit. */
const endReason = (end: { code: number | null; error?: Error; stderr: string }) =>
  end.error?.message ?? (end.stderr.trim().split("\n").pop() || `exit ${end.code}`);

/** The host processes: starts one, replaces it when it dies or its tools change, and ends them all. */
function createSupervisor(setStatus: (status: HostStatus) => void, onRss: (rssBytes: number) => void) {
  const state: SupervisorState = { processes: new Set(), closing: false, retryDelayMs: 1_000 };

  function launch({ processes, log, command }: Launch) {
    const startedAt = Date.now();
    const host: HostProcess = startHostProcess(processes, command, {
      onReady(ready) {
        setStatus({ state: "ready", pid: ready.pid, versions: ready.versions, rssBytes: ready.rssBytes });
        logReady(log, ready);
      },
      onStale() {
        if (host !== state.current) return;
        log.info("yt-dlp or gallery-dl changed on disk: starting a new extraction host");
        setStatus({ state: "starting", reason: "a tool changed on disk" });
        host.retire();
        launch(state.launch!);
      },
      onRss: (rssBytes) => host === state.current && onRss(rssBytes),
      onExit: (end) => {
        state.processes.delete(host);
        if (host !== state.current || state.closing) return;
        state.current = undefined;
        // A host that served a while is started again at once; quick repeated deaths wait longer each time.
        if (host.ready && Date.now() - startedAt > 60_000) state.retryDelayMs = 1_000;
        const what = host.ready ? "stopped" : "could not start";
        retryLater(`the extraction host ${what} (${endReason(end)})`, log, {
          message: `extraction host ${what}: extractions start the tool's program until it runs again`,
          fields: { code: end.code, stderr: end.stderr.slice(-1000) },
        });
      },
    }, log);
    state.processes.add(host);
    state.current = host;
  }

  /** Says why no host is in use, and finds and starts one again after the pause, doubled for the next time. */
  function retryLater(reason: string, log: Logger, warning: { message: string; fields?: Record<string, unknown> }) {
    const retryInMs = state.retryDelayMs;
    state.retryDelayMs = Math.min(state.retryDelayMs * 2, maxRetryDelayMs);
    setStatus({ state: "unavailable", reason: `${reason}; trying again in ${Math.ceil(retryInMs / 1000)} s` });
    log.warn(warning.message, { reason, ...warning.fields, retryInMs });
    state.retryTimer = setTimeout(() => void attempt(), retryInMs);
  }

  async function attempt() {
    const found = await state.find!();
    if (state.closing) return;
    if ("reason" in found) {
      return retryLater(found.reason, found.log, {
        message: "extraction host not used: every extraction starts the tool's program",
      });
    }
    setStatus({ state: "starting", reason: "warming up" });
    state.launch = found;
    launch(found);
  }

  return {
    state: state as Readonly<SupervisorState>,
    /** The host a new job goes to, if one is ready. */
    ready: () => (state.current?.ready && !state.current.retiring ? state.current : undefined),
    start(find: FindLaunch) {
      state.find = find;
      void attempt();
    },
    async close() {
      state.closing = true;
      clearTimeout(state.retryTimer);
      // A host whose stdin closes kills its children and exits.
      for (const host of state.processes) host.end();
      await Promise.all([...state.processes].map((host) => host.exited));
    },
  };
}

export function createExtractionHost(options: ExtractionHostOptions): ExtractionHost {
  let status: HostStatus = options.enabled
    ? { state: "starting", reason: "not started yet" }
    : { state: "off", reason: "EXTRACTION_HOST=off" };
  const setStatus = (next: HostStatus) => {
    status = next;
    options.onStatus?.(next);
  };
  const supervisor = createSupervisor(
    setStatus,
    (rssBytes) => status.state === "ready" && setStatus({ ...status, rssBytes }),
  );

  options.onStatus?.(status);
  return {
    async run(job) {
      // gallery-dl's jobs only where the host could import the gallery-dl its program runs.
      const host = status.state === "ready" && status.versions[job.tool] !== null ? supervisor.ready() : undefined;
      const answer = host ? await host.submit(job) : "stale";
      return answer === "stale" ? options.cli.run(job) : answer;
    },
    start(log) {
      if (!options.enabled) {
        log.info("extraction host off (EXTRACTION_HOST=off): every extraction starts the tool's program");
        return;
      }
      supervisor.start(() => findLaunch(options, log));
    },
    close: () => supervisor.close(),
    status: () => status,
  };
}

/** The host's command from the tools' programs as they are now, or why there can be none. */
async function findLaunch(options: ExtractionHostOptions, log: Logger): ReturnType<FindLaunch> {
  const [found, gallery] = await Promise.all([
    findInterpreter(options.toolRuns, options.ytdlpPath),
    findInterpreter(options.toolRuns, options.galleryDlPath),
  ]);
  if ("reason" in found) return { reason: found.reason, log };
  // The same interpreter imports the same gallery-dl that its program runs.
  const galleryDl = "interpreter" in gallery && gallery.interpreter.join(" ") === found.interpreter.join(" ");
  const { maxMemoryBytes, workerOptions } = options;
  return { processes: options.processes, log, command: { ...found, galleryDl, maxMemoryBytes, workerOptions } };
}

/** Why the host is not in use, while it cannot be (not while it is off by choice or starting); null otherwise. */
export function hostUnavailable(host: ExtractionHost): string | null {
  const status = host.status();
  return status.state === "unavailable"
    ? `the extraction host is not in use (${status.reason}): every extraction starts the tool's program, about a second each`
    : null;
}

/** What /readyz says of the host: never a failure, since the CLI stands in for it. */
export function hostReadiness(
  host: ExtractionHost,
): { name: string; check: () => Promise<{ detail: string; warning?: string }> } {
  return {
    name: "extraction-host",
    check: async () => {
      const status = host.status();
      if (status.state === "ready") {
        const versions = Object.entries(status.versions).filter(([, version]) => version !== null).map((
          [tool, version],
        ) => `${tool} ${version}`);
        return {
          detail: `in use: pid ${status.pid}, ${versions.join(", ")}, RSS ${Math.round(status.rssBytes / 2 ** 20)} MB`,
        };
      }
      const detail = `not in use (${status.state}: ${status.reason}): every extraction starts the tool's program`;
      return status.state === "unavailable"
        ? { detail, warning: "extractions take about a second each without the extraction host" }
        : { detail };
    },
  };
}
