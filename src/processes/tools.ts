// The external programs page mode runs. Each is probed once, in the background from start-up on,
// so /readyz can say what is missing and page mode can answer 503 instead of failing on every
// request; a page-mode request that comes before the probe is done waits for it.
import { ApiError } from "../http/problem.ts";
import type { ReadinessCheck } from "../http/readiness.ts";

export type ToolName = "yt-dlp" | "ffmpeg";

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

const versionArgs: Record<ToolName, string[]> = { "yt-dlp": ["--version"], ffmpeg: ["-version"] };

// Probed once per path and process: a few hundred ms of CPU (over a second for yt-dlp on a busy
// machine), spent while the store opens and the server starts, not before.
const probed = new Map<string, Promise<ToolStatus>>();
const probeKey = (name: ToolName, path: string) => `${name}\0${path}`;
const firstLine = (output: string) => output.split("\n")[0]!.trim();
const probeTimeoutMs = 10_000;

/** Why a tool could not be run: the spawn error, or its exit and error output. */
function statusOf(path: string, run: ToolRun): ToolStatus {
  if ("stdout" in run) return { path, version: firstLine(run.stdout), failure: null };
  const message = run.error instanceof Error ? run.error.message.split("\n")[0] : String(run.error);
  return { path, version: null, failure: [message, run.stderr.trim()].filter(Boolean).join(": ").slice(0, 500) };
}

function probeTool(runs: ToolRuns, name: ToolName, path: string): Promise<ToolStatus> {
  const key = probeKey(name, path);
  let status = probed.get(key);
  if (status === undefined) {
    status = runs.run(path, versionArgs[name], probeTimeoutMs).then((run) => statusOf(path, run));
    probed.set(key, status);
  }
  return status;
}

/** Both tools, probed at once (or found probed): what each is, or why it cannot be run. */
export async function probeTools(runs: ToolRuns, paths: Record<ToolName, string>): Promise<Tools> {
  const [ytdlp, ffmpeg] = await Promise.all([probeTool(runs, "yt-dlp", paths["yt-dlp"]), probeTool(runs, "ffmpeg", paths.ffmpeg)]);
  return { "yt-dlp": ytdlp, ffmpeg };
}

/** Throws 503 tool_missing when a tool page mode needs is not there, once the probe has said. */
export async function requireTools(probe: Promise<Tools>, names: readonly ToolName[]): Promise<void> {
  const tools = await probe;
  const missing = names.filter((name) => tools[name].version === null);
  if (missing.length === 0) return;
  throw new ApiError(
    503,
    "tool_missing",
    `This server cannot fetch media from pages: ${missing.map((name) => `${name} (${tools[name].path})`).join(" and ")} could not be run. Direct media links still work; the operator should install it or set ${missing.map((name) => (name === "yt-dlp" ? "YTDLP_PATH" : "FFMPEG_PATH")).join(" / ")}.`,
  );
}

/** /readyz's checks that each tool could be run, with a warning when yt-dlp is old. */
export function toolReadinessChecks(probe: Promise<Tools>, now: () => Date): ReadinessCheck[] {
  return (["yt-dlp", "ffmpeg"] as const).map((name) => ({
    name,
    check: async () => {
      const tools = await probe;
      if (tools[name].version === null) throw new Error(`${tools[name].path} could not be run`);
      return name === "yt-dlp" ? ytdlpAgeWarning(tools, now()) : null;
    },
  }));
}

/** The bare version: yt-dlp prints `2026.10.26`, ffmpeg `ffmpeg version 5.1.9-0+deb12u1 Copyright ...`. */
export function toolVersion(status: ToolStatus): string | null {
  if (status.version === null) return null;
  return /\bversion\s+(\S+)/.exec(status.version)?.[1] ?? status.version.split(/\s/)[0]!;
}

/** Past this age yt-dlp's own maintainers expect sites to have changed under it. */
export const ytdlpMaxAgeDays = 90;

/** yt-dlp's version is its release date (`2026.10.26`, nightlies add a time); its age in whole days, or null. */
export function ytdlpAgeDays(version: string, now: Date): number | null {
  const match = /^(\d{4})\.(\d{2})\.(\d{2})/.exec(version);
  if (!match) return null;
  const released = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Math.floor((now.getTime() - released) / 86_400_000);
}

/** A warning naming yt-dlp's age when it is older than ytdlpMaxAgeDays; null when it is fresh or unknown. */
export function ytdlpAgeWarning(tools: Tools, now: Date): string | null {
  const version = toolVersion(tools["yt-dlp"]);
  const age = version === null ? null : ytdlpAgeDays(version, now);
  if (age === null || age <= ytdlpMaxAgeDays) return null;
  return `yt-dlp ${version} is ${age} days old: platforms change often and an old yt-dlp fails on them; update it (bash scripts/setup-debian.sh --update-yt-dlp) or point YTDLP_PATH at a current one`;
}
