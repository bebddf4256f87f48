// The external programs page mode runs. Each is probed once at start-up, so /healthz and /readyz
// can say what is missing and page mode can answer 503 instead of failing on every request.
import { execFileSync } from "node:child_process";
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

// Probed once per path and process: a start-up cost of a few hundred ms, paid once.
const probed = new Map<string, ToolStatus>();

function probeTool(name: ToolName, path: string): ToolStatus {
  const known = probed.get(`${name}\0${path}`);
  if (known) return known;
  let version: string | null = null;
  let failure: string | null = null;
  try {
    version = execFileSync(path, versionArgs[name], { timeout: 10_000, stdio: ["ignore", "pipe", "pipe"] }).toString().split("\n")[0]!.trim();
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    failure = [error instanceof Error ? error.message.split("\n")[0] : String(error), stderr].filter(Boolean).join(": ").slice(0, 500);
  }
  const status = { path, version, failure };
  probed.set(`${name}\0${path}`, status);
  return status;
}

export function probeTools(paths: Record<ToolName, string>): Tools {
  return { "yt-dlp": probeTool("yt-dlp", paths["yt-dlp"]), ffmpeg: probeTool("ffmpeg", paths.ffmpeg) };
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
