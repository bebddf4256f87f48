// The external programs page mode runs. Each is probed once at start-up, so /healthz and /readyz
// can say what is missing and page mode can answer 503 instead of failing on every request.
import { execFile, execFileSync } from "node:child_process";
import { ApiError } from "../http/problem.ts";

export type ToolName = "yt-dlp" | "ffmpeg";

export interface ToolStatus {
  path: string;
  /** First line the tool printed about its version; null when it could not be run. */
  version: string | null;
  /** Why it could not be run (the spawn error, or its exit and error output); null when it ran. */
  failure: string | null;
}

export type Tools = Record<ToolName, ToolStatus>;

const versionArgs: Record<ToolName, string[]> = { "yt-dlp": ["--version"], ffmpeg: ["-version"] };

// Probed once per path and process: a start-up cost of a few hundred ms (over a second for
// yt-dlp on a busy machine), paid once and, through probeToolsAhead, while the store opens.
const probed = new Map<string, ToolStatus>();
const probeKey = (name: ToolName, path: string) => `${name}\0${path}`;
const firstLine = (output: string | Buffer) => output.toString().split("\n")[0]!.trim();
const probeTimeoutMs = 10_000;

/** Why a tool could not be run: the spawn error, or its exit and error output. */
function failureText(error: unknown, stderr: string | Buffer | undefined): string {
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return [message, stderr?.toString().trim()].filter(Boolean).join(": ").slice(0, 500);
}

function probeTool(name: ToolName, path: string): ToolStatus {
  const known = probed.get(probeKey(name, path));
  if (known) return known;
  let version: string | null = null;
  let failure: string | null = null;
  try {
    version = firstLine(execFileSync(path, versionArgs[name], { timeout: probeTimeoutMs, stdio: ["ignore", "pipe", "pipe"] }));
  } catch (error) {
    failure = failureText(error, (error as { stderr?: Buffer }).stderr);
  }
  const status = { path, version, failure };
  probed.set(probeKey(name, path), status);
  return status;
}

export function probeTools(paths: Record<ToolName, string>): Tools {
  return { "yt-dlp": probeTool("yt-dlp", paths["yt-dlp"]), ffmpeg: probeTool("ffmpeg", paths.ffmpeg) };
}

/** Probes both tools at once without blocking, so that probeTools later finds them known. */
export async function probeToolsAhead(paths: Record<ToolName, string>): Promise<void> {
  await Promise.all(
    (Object.keys(paths) as ToolName[]).map(async (name) => {
      const status = await new Promise<ToolStatus>((resolve) => {
        execFile(paths[name], versionArgs[name], { timeout: probeTimeoutMs }, (error, stdout, stderr) =>
          resolve(error ? { path: paths[name], version: null, failure: failureText(error, stderr) } : { path: paths[name], version: firstLine(stdout), failure: null }),
        );
      });
      probed.set(probeKey(name, paths[name]), status);
    }),
  );
}

/** Throws 503 tool_missing when a tool page mode needs is not there. */
export function requireTools(tools: Tools, names: readonly ToolName[]): void {
  const missing = names.filter((name) => tools[name].version === null);
  if (missing.length === 0) return;
  throw new ApiError(
    503,
    "tool_missing",
    `This server cannot fetch media from pages: ${missing.map((name) => `${name} (${tools[name].path})`).join(" and ")} could not be run. Direct media links still work; the operator should install it or set ${missing.map((name) => (name === "yt-dlp" ? "YTDLP_PATH" : "FFMPEG_PATH")).join(" / ")}.`,
  );
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
