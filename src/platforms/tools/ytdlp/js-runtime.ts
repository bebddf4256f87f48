// YouTube hides its media URLs behind JavaScript challenges. yt-dlp (2025.11 and later) solves
// them by running its EJS solver scripts in an outside JavaScript runtime named with
// `--js-runtimes`. The combination used here: the Deno binary of the `deno` npm package this
// service depends on, with `--remote-components ejs:npm`, which lets Deno load the solver's two
// libraries (meriyah, astring) from the npm registry once and keep them in its cache. yt-dlp's
// Debian package ships the rest of the solver (the core script and Deno's import stub), so
// nothing is fetched from anywhere but the npm registry.

/** The runtimes yt-dlp's `--js-runtimes` accepts. */
export const jsRuntimeNames = ["deno", "node", "bun", "quickjs"] as const;

/**
 * yt-dlp's `--js-runtimes` value for the operator's YTDLP_JS_RUNTIME: `off` gives null (yt-dlp
 * then finds none, and YouTube fails); `auto` the packaged Deno, else the runtime the service
 * runs on (Node and Bun need a yt-dlp that carries the solver's libraries itself, as yt-dlp's
 * own builds do), as the runtime's `automatic` finds it; anything else is passed as given
 * (`deno:/usr/local/bin/deno`).
 */
export function resolveJsRuntime(setting: string, automatic: () => string): string | null {
  if (setting === "off") return null;
  if (setting !== "auto") return setting;
  return automatic();
}

/** yt-dlp's arguments for a runtime: only that one, and the solver's libraries from npm. */
export function jsRuntimeArgs(runtime: string | null): string[] {
  if (runtime === null) return ["--no-js-runtimes"];
  return ["--no-js-runtimes", "--js-runtimes", runtime, "--remote-components", "ejs:npm"];
}
