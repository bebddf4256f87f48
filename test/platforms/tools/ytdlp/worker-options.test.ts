// The contract between the yt-dlp options the service writes (extractInfoArgs) and the ones it
// names as fit to share a worker of the extraction host (workerOptions, which the host is handed):
// every option written is named one way or the other, and the host's own rule (pool.py) admits the
// service's jobs exactly when they keep to themselves.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { extractInfoArgs, workerOptions } from "../../../../src/platforms/tools/ytdlp/run.ts";

/** Every option extractInfoArgs can write at once: each optional one set. */
const everyOption = {
  format: "bv*+ba/b",
  socketTimeoutSec: 20,
  proxy: "http://127.0.0.1:1",
  jsRuntime: "deno:/usr/bin/deno",
  playlistItems: "1:20",
  poTokens: { url: "http://127.0.0.1:4416", timeoutMs: 6000 },
};
const link = "https://www.example.com/watch?v=1";

/** The options of an argv, without their values and without what follows `--`. */
function optionsOf(args: readonly string[]): string[] {
  const valued = new Set<string>([...workerOptions.valued, ...workerOptions.runsAlone]);
  const options: string[] = [];
  for (let at = 0; at < args.length && args[at] !== "--"; at++) {
    options.push(args[at]!);
    if (valued.has(args[at]!)) at++;
  }
  return options;
}

/** Asks the host's own rule (extraction-host/pool.py) whether each job may share a worker. */
async function admittedByHost(jobs: { args: string[]; stdin?: string }[]): Promise<boolean[]> {
  const program = `import json, sys
from pool import SharedOptions
from chooser import link_of
shared = SharedOptions(**json.loads(sys.argv[1]))
print(json.dumps([shared.admitted(job, link_of(job)) for job in json.loads(sys.argv[2])]))`;
  const { flags, valued } = workerOptions;
  const sent = jobs.map((job) => ({ tool: "yt-dlp", ...job }));
  const { stdout } = await promisify(execFile)(
    "python3",
    ["-c", program, JSON.stringify({ flags, valued }), JSON.stringify(sent)],
    { cwd: "extraction-host" },
  );
  return JSON.parse(stdout) as boolean[];
}

describe("the options a yt-dlp job may carry into a shared worker", () => {
  test("name every option extractInfoArgs writes, and none it never writes", () => {
    const written = new Set([
      ...optionsOf(extractInfoArgs(link, everyOption)),
      ...optionsOf(extractInfoArgs(link, { ...everyOption, jsRuntime: null })),
      ...optionsOf(extractInfoArgs(link, { cookiesFile: "/tmp/jar", infoJson: "{}" })),
    ]);
    const named: string[] = [...workerOptions.flags, ...workerOptions.valued, ...workerOptions.runsAlone];
    expect([...written].filter((option) => !named.includes(option))).toEqual([]);
    expect(named.filter((option) => !written.has(option))).toEqual([]);
  });

  test("let the host share a worker for the service's own jobs, never for one with cookies or a description", async () => {
    const own = extractInfoArgs(link, everyOption);
    const withoutRuntime = extractInfoArgs(link, { ...everyOption, jsRuntime: null });
    const withCookies = extractInfoArgs(link, { ...everyOption, cookiesFile: "/tmp/jar" });
    const fromDescription = extractInfoArgs(link, { ...everyOption, infoJson: "{}" });
    const unknown = ["-J", "--exec", "touch /tmp/x", "--", link];
    expect(
      await admittedByHost([
        { args: own },
        { args: withoutRuntime },
        { args: withCookies },
        { args: fromDescription, stdin: "{}" },
        { args: unknown },
      ]),
    ).toEqual([true, true, false, false, false]);
  });
});
