// Starts a media tool under a POSIX shell that watches the service (watchdog.sh). The tool leads a
// process group of its own, so a kill reaches the helpers it starts (yt-dlp runs ffmpeg), which
// also means nothing ends it when the service is killed with SIGKILL. A watcher in the group
// checks every second that the service's pid still runs, and when it does not, kills the whole
// group; a SIGTERM to the group (how the service ends a tool) leaves the watcher to kill the group
// a second later itself, so a tool that ignores SIGTERM is gone even when the service dies before
// its own SIGKILL would follow. It is all plain `sh`, so it works the same under Node, Bun and
// Deno without native code.
import watchdogScript from "./watchdog.sh?raw";
import type { ProcessHost, SpawnedChild } from "./process-host.ts";

export const WATCHDOG_NAME = "media-api-watchdog";

// What a child needs to run (yt-dlp's and Deno's caches included), and nothing else: no DATABASE_URL, no tokens, and no proxy
// variables: the egress gate is the children's only way out, and a `no_proxy` would let them
// around it.
const passedToChildren = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "XDG_CACHE_HOME", "DENO_DIR"];

function childEnv(env: ProcessHost["env"]): Record<string, string> {
  return Object.fromEntries(passedToChildren.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

/** Starts `command` under the watchdog, with the children's environment. */
export function spawnWatched(
  processes: ProcessHost,
  command: string,
  args: readonly string[],
  stdin: boolean,
): SpawnedChild {
  return processes.spawn("/bin/sh", ["-c", watchdogScript, WATCHDOG_NAME, String(processes.pid), command, ...args], {
    stdin,
    env: childEnv(processes.env),
  });
}

/**
 * The watchdog's shell says so when it could not run the tool (exit 126 or 127, its log starting
 * with its name): that is a spawn failure, with the shell's words. Null for any other exit.
 */
export function notStarted(code: number | null, stderr: string): Error | null {
  if ((code !== 126 && code !== 127) || !stderr.startsWith(`${WATCHDOG_NAME}:`)) return null;
  return new Error(stderr.trim().split("\n")[0]!.slice(WATCHDOG_NAME.length + 2));
}
