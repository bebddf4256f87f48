import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseConfig } from "../../../../src/config.ts";
import { jsRuntimeArgs, resolveJsRuntime } from "../../../../src/platforms/tools/ytdlp/js-runtime.ts";
import { automaticJsRuntime } from "../../../../src/runtime/node/js-runtime.ts";

describe("resolveJsRuntime()", () => {
  test("auto: the Deno binary of the deno package this service depends on", () => {
    const runtime = resolveJsRuntime("auto", automaticJsRuntime);
    expect(runtime).toMatch(/^deno:.*node_modules\/(deno|@deno\/[\w-]+)\/deno$/);
    expect(existsSync(runtime!.slice("deno:".length))).toBe(true);
  });

  test("off gives none; an operator's choice is passed as given", () => {
    expect(resolveJsRuntime("off", automaticJsRuntime)).toBeNull();
    expect(resolveJsRuntime("node:/usr/bin/node", automaticJsRuntime)).toBe("node:/usr/bin/node");
  });

  test("YTDLP_JS_RUNTIME takes auto, off and yt-dlp's runtimes with a path, nothing else", () => {
    expect(parseConfig({}).YTDLP_JS_RUNTIME).toBe("auto");
    expect(parseConfig({ YTDLP_JS_RUNTIME: "quickjs:/opt/qjs" }).YTDLP_JS_RUNTIME).toBe("quickjs:/opt/qjs");
    expect(() => parseConfig({ YTDLP_JS_RUNTIME: "python:/usr/bin/python3" })).toThrow(/YTDLP_JS_RUNTIME/);
  });
});

describe("jsRuntimeArgs()", () => {
  test("only the chosen runtime, with the solver's libraries from the npm registry", () => {
    expect(jsRuntimeArgs("deno:/opt/deno")).toEqual([
      "--no-js-runtimes",
      "--js-runtimes",
      "deno:/opt/deno",
      "--remote-components",
      "ejs:npm",
    ]);
    expect(jsRuntimeArgs(null)).toEqual(["--no-js-runtimes"]);
  });
});
