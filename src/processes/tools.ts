// The external programs page mode runs. Each is probed in the background from start-up on, so
// /readyz can say what is missing and page mode can answer 503 instead of failing on every
// request; a page-mode request that comes before the probe is done waits for it. A probe is not
// kept for ever: the operator installs a missing tool or updates one (`--update-tools`) without
// restarting the service, so a missing tool is looked for again after half a minute and a found
// one's version read again after ten.
import { ApiError } from "../http/problem.ts";
import type { ReadinessCheck } from "../http/readiness.ts";
import { type Happening, happening } from "../util/event.ts";

export type ToolName = "yt-dlp" | "gallery-dl" | "ffmpeg";
export const toolNames: readonly ToolName[] = ["yt-dlp", "gallery-dl", "ffmpeg"];

export interface ToolStatus {
  path: string;
  /** First line the tool printed about its version; null when it could not be run. */
  version: string | null;
  /** Why it could not be run (the spawn error, or its exit and error output); null when it ran. */
  failure: string | null;
}

export type Tools = Record<ToolName, ToolStatus>;

/** A tool run to its end: what it wrote to stdout, or why it failed and what it wrote to stderr. */
export type ToolRun = { stdout: string } | { error: unknown; stderr: string };

/** How the runtime runs a tool once to its end; it never rejects. */
export interface ToolRuns {
  run(path: string, args: readonly string[], timeoutMs: number): Promise<ToolRun>;
}

const versionArgs: Record<ToolName, string[]> = {
  "yt-dlp": ["--version"],
  "gallery-dl": ["--version"],
  ffmpeg: ["-version"],
};

/** The setting that names each tool's program. */
export const toolPathSettings: Record<ToolName, string> = {
  "yt-dlp": "YTDLP_PATH",
  "gallery-dl": "GALLERY_DL_PATH",
  ffmpeg: "FFMPEG_PATH",
};

/** How long a probe's answer stands: a missing tool is soon looked for again, a found one seldom. */
export const probeStandsMs = { missing: 30_000, found: 10 * 60_000 };

/** A probe of one tool: its answer once settled, and when it settled (by the clock that asked). */
interface Probe {
  status: Promise<ToolStatus>;
  settled: { at: number; status: ToolStatus } | null;
}

// Shared by every app of the process (tests build many) and kept per path: a probe costs a few
// hundred ms of CPU (over a second for yt-dlp on a busy machine).
const probes = new Map<string, { current: Probe; next: Probe | null }>();
const probeKey = (name: ToolName, path: string) => `${name}\0${path}`;
const firstLine = (output: string) => output.split("\n")[0]!.trim();
// Generous: a busy machine (load 60 on 2 cores) took over 10 s to start yt-dlp's Python for
// `--version`.
const probeTimeoutMs = 60_000;

/** Why a tool could not be run: the spawn error, or its exit and error output. */
function statusOf(path: string, run: ToolRun): ToolStatus {
  if ("stdout" in run) return { path, version: firstLine(run.stdout), failure: null };
  const message = run.error instanceof Error ? run.error.message.split("\n")[0] : String(run.error);
  return { path, version: null, failure: [message, run.stderr.trim()].filter(Boolean).join(": ").slice(0, 500) };
}

function startProbe(runs: ToolRuns, name: ToolName, path: string, now: () => number): Probe {
  const probe: Probe = {
    status: runs.run(path, versionArgs[name], probeTimeoutMs).then((run) => statusOf(path, run)),
    settled: null,
  };
  void probe.status.then((status) => (probe.settled = { at: now(), status }));
  return probe;
}

/**
 * The tool's status as far as it is known at `now()`. An answer past its time starts a new probe;
 * a found tool's old answer stands until the new one comes (a request need not wait on yt-dlp's
 * `--version`), a missing tool's request waits for the new one (it would be refused otherwise).
 */
function probeTool(runs: ToolRuns, name: ToolName, path: string, now: () => number): Promise<ToolStatus> {
  const key = probeKey(name, path);
  const known = probes.get(key);
  if (known === undefined) {
    const first = { current: startProbe(runs, name, path, now), next: null };
    probes.set(key, first);
    return first.current.status;
  }
  if (known.next?.settled) [known.current, known.next] = [known.next, null];
  const { settled } = known.current;
  const found = settled?.status.version !== null;
  if (settled === null || now() - settled.at < probeStandsMs[found ? "found" : "missing"]) return known.current.status;
  known.next ??= startProbe(runs, name, path, now);
  return found ? known.current.status : known.next.status;
}

/** Every tool, probed at once (or found probed lately): what each is, or why it cannot be run. */
export async function probeTools(
  runs: ToolRuns,
  paths: Record<ToolName, string>,
  now: () => number = Date.now,
): Promise<Tools> {
  const statuses = await Promise.all(toolNames.map((name) => probeTool(runs, name, paths[name], now)));
  return Object.fromEntries(toolNames.map((name, i) => [name, statuses[i]!])) as Tools;
}

export interface ToolProbe {
  /** What the tools are now, as probeTools() knows them. */
  current(): Promise<Tools>;
  /** Told the first answer (`before` null) and each that differs from the one before. */
  changed: Happening<[tools: Tools, before: Tools | null]>;
}

const differs = (a: ToolStatus, b: ToolStatus) => a.version !== b.version || a.failure !== b.failure;

/** The tools of one app: probed from now on, and asked again as their answers age. */
export function createToolProbe(runs: ToolRuns, paths: Record<ToolName, string>, now: () => number): ToolProbe {
  const changed = happening<[tools: Tools, before: Tools | null]>();
  let last: Tools | null = null;
  const current = async () => {
    const tools = await probeTools(runs, paths, now);
    if (last === null || toolNames.some((name) => differs(tools[name], last![name]))) {
      const before = last;
      last = tools;
      changed.emit(tools, before);
    }
    return tools;
  };
  void current();
  return { current, changed };
}

/** Throws 503 tool_missing when a tool page mode needs is not there, once the probe has said. */
export async function requireTools(probe: ToolProbe, names: readonly ToolName[]): Promise<void> {
  const tools = await probe.current();
  const missing = names.filter((name) => tools[name].version === null);
  if (missing.length === 0) return;
  throw new ApiError(
    "tool_missing",
    `This server cannot fetch media from pages: ${
      missing.map((name) => `${name} (${tools[name].path})`).join(" and ")
    } could not be run. Direct media links still work; the operator should install it (bash scripts/setup-debian.sh) or set ${
      missing.map((name) => toolPathSettings[name]).join(" / ")
    }.`,
  );
}

/** /readyz's checks that each tool could be run, with a warning when yt-dlp or gallery-dl is old. */
export function toolReadinessChecks(probe: ToolProbe, now: () => Date): ReadinessCheck[] {
  return toolNames.map((name) => ({
    name,
    check: async () => {
      const tools = await probe.current();
      if (tools[name].version === null) throw new Error(`${tools[name].path} could not be run`);
      return name === "ffmpeg" ? null : ageWarning(name, tools, now());
    },
  }));
}

/** The bare version: yt-dlp prints `2026.10.26`, ffmpeg `ffmpeg version 5.1.9-0+deb12u1 Copyright ...`. */
export function toolVersion(status: ToolStatus): string | null {
  if (status.version === null) return null;
  return /\bversion\s+(\S+)/.exec(status.version)?.[1] ?? status.version.split(/\s/)[0]!;
}

/** Past this age the tools' own maintainers expect sites to have changed under them. */
export const toolMaxAgeDays = 90;

/** yt-dlp's version is its release date (`2026.10.26`, nightlies add a time); its age in whole days, or null. */
export function ytdlpAgeDays(version: string, now: Date): number | null {
  const match = /^(\d{4})\.(\d{2})\.(\d{2})/.exec(version);
  if (!match) return null;
  const released = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Math.floor((now.getTime() - released) / 86_400_000);
}

/**
 * gallery-dl's version says nothing of its date (`1.32.19`). When each minor release came out
 * (Debian's first upload of it, days after the release) bounds the age from below: a version
 * is older than the next minor release, so a minor that was followed over toolMaxAgeDays ago
 * is at least that old. A newer version than the table knows gets no warning.
 */
const galleryDlMinorReleases: readonly [minor: string, released: string][] = [
  ["1.24", "2022-11-22"],
  ["1.25", "2023-03-13"],
  ["1.26", "2023-10-03"],
  ["1.27", "2024-06-06"],
  ["1.28", "2024-12-02"],
  ["1.29", "2025-03-01"],
  ["1.30", "2025-07-31"],
  ["1.31", "2025-12-20"],
  ["1.32", "2026-04-26"],
];

/** Whole days gallery-dl `version` is at least old at `now`; null when the table cannot say. */
export function galleryDlAgeDays(version: string, now: Date): number | null {
  const minor = /^(\d+)\.(\d+)\./.exec(version);
  if (!minor) return null;
  const newer = galleryDlMinorReleases.find(([known]) => {
    const [major, number] = known.split(".").map(Number);
    return major! > Number(minor[1]) || (major === Number(minor[1]) && number! > Number(minor[2]));
  });
  return newer === undefined ? null : Math.floor((now.getTime() - Date.parse(`${newer[1]}T00:00:00Z`)) / 86_400_000);
}

const ageOf: Record<"yt-dlp" | "gallery-dl", (version: string, now: Date) => number | null> = {
  "yt-dlp": ytdlpAgeDays,
  "gallery-dl": galleryDlAgeDays,
};

/** A warning naming the tool's age when it is older than toolMaxAgeDays; null when it is fresh or unknown. */
export function ageWarning(name: "yt-dlp" | "gallery-dl", tools: Tools, now: Date): string | null {
  const version = toolVersion(tools[name]);
  const age = version === null ? null : ageOf[name](version, now);
  if (age === null || age <= toolMaxAgeDays) return null;
  const known = name === "gallery-dl" ? "at least " : "";
  return `${name} ${version} is ${known}${age} days old: platforms change often and an old ${name} fails on them; update it (bash scripts/setup-debian.sh --update-tools) or point ${
    toolPathSettings[name]
  } at a current one`;
}
