// The external programs page mode runs. Each is probed once at start-up, so /healthz and /readyz
// can say what is missing and page mode can answer 503 instead of failing on every request.
import { execFile, execFileSync } from "node:child_process";
import { ApiError } from "../http/problem.ts";

export type ToolName = "yt-dlp" | "ffmpeg";

export interface ToolStatus {
  path: string;
  /** First line the tool printed about its version; null when it could not be run. */
  version: string | null;
}

export type Tools = Record<ToolName, ToolStatus>;

const versionArgs: Record<ToolName, string[]> = { "yt-dlp": ["--version"], ffmpeg: ["-version"] };

// Probed once per path and process: a start-up cost of a few hundred ms (over a second for
// yt-dlp on a busy machine), paid once and, through probeToolsAhead, while the store opens.
const probed = new Map<string, ToolStatus>();
const probeKey = (name: ToolName, path: string) => `${name}\0${path}`;
const firstLine = (output: string | Buffer) => output.toString().split("\n")[0]!.trim();
const probeTimeoutMs = 10_000;

function probeTool(name: ToolName, path: string): ToolStatus {
  const known = probed.get(probeKey(name, path));
  if (known) return known;
  let version: string | null;
  try {
    version = firstLine(execFileSync(path, versionArgs[name], { timeout: probeTimeoutMs, stdio: ["ignore", "pipe", "ignore"] }));
  } catch {
    version = null;
  }
  const status = { path, version };
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
      const version = await new Promise<string | null>((resolve) => {
        execFile(paths[name], versionArgs[name], { timeout: probeTimeoutMs }, (error, stdout) => resolve(error ? null : firstLine(stdout)));
      });
      probed.set(probeKey(name, paths[name]), { path: paths[name], version });
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
