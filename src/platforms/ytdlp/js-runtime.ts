// YouTube hides its media URLs behind JavaScript challenges. yt-dlp (2025.11 and later) solves
// them by running its EJS solver scripts in an outside JavaScript runtime named with
// `--js-runtimes`. The combination used here: the Deno binary of the `deno` npm package this
// service depends on, with `--remote-components ejs:npm`, which lets Deno load the solver's two
// libraries (meriyah, astring) from the npm registry once and keep them in its cache. yt-dlp's
// Debian package ships the rest of the solver (the core script and Deno's import stub), so
// nothing is fetched from anywhere but the npm registry.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { dirname, join } from "node:path";

/** The runtimes yt-dlp's `--js-runtimes` accepts. */
export const jsRuntimeNames = ["deno", "node", "bun", "quickjs"] as const;

/** The Deno binary of the `deno` package in node_modules, or null when it is not installed. */
function packagedDeno(): string | null {
  const require = createRequire(import.meta.url);
  const binary = platform() === "win32" ? "deno.exe" : "deno";
  const candidates: string[] = [];
  for (const pkg of ["deno", `@deno/${platform()}-${arch()}${platform() === "linux" ? "-glibc" : ""}`]) {
    try {
      candidates.push(join(dirname(require.resolve(`${pkg}/package.json`)), binary));
    } catch {
      // not installed; try the next
    }
  }
  return candidates.find((file) => existsSync(file)) ?? null;
}

/** The runtime this process runs on, as yt-dlp names it. */
function hostRuntime(): string {
  const name = "Deno" in globalThis ? "deno" : process.versions.bun ? "bun" : "node";
  return `${name}:${process.execPath}`;
}

/**
 * yt-dlp's `--js-runtimes` value for the operator's YTDLP_JS_RUNTIME: `off` gives null (yt-dlp
 * then finds none, and YouTube fails); `auto` the packaged Deno, else the runtime the service
 * runs on (Node and Bun need a yt-dlp that carries the solver's libraries itself, as yt-dlp's
 * own builds do); anything else is passed as given (`deno:/usr/local/bin/deno`).
 */
export function resolveJsRuntime(setting: string): string | null {
  if (setting === "off") return null;
  if (setting !== "auto") return setting;
  const deno = packagedDeno();
  return deno === null ? hostRuntime() : `deno:${deno}`;
}

/** yt-dlp's arguments for a runtime: only that one, and the solver's libraries from npm. */
export function jsRuntimeArgs(runtime: string | null): string[] {
  if (runtime === null) return ["--no-js-runtimes"];
  return ["--no-js-runtimes", "--js-runtimes", runtime, "--remote-components", "ejs:npm"];
}
