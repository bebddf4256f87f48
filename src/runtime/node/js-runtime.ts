// yt-dlp's JavaScript runtime when the operator leaves YTDLP_JS_RUNTIME at `auto`: the Deno
// binary of the `deno` npm package this service depends on, else the runtime the service runs on.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { dirname, join } from "node:path";

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

/** yt-dlp's `--js-runtimes` value for `auto`. */
export function automaticJsRuntime(): string {
  const deno = packagedDeno();
  return deno === null ? hostRuntime() : `deno:${deno}`;
}
