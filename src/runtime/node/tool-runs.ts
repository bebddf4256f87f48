// Running a media tool once to its end, for the start-up probe, on node:child_process.
import { execFile } from "node:child_process";
import type { ToolRuns } from "../../processes/tools.ts";

/** How long a tool that ignores SIGTERM at its time is given before SIGKILL. */
const killGraceMs = 1_000;

export const nodeToolRuns: ToolRuns = {
  run: (path, args, timeoutMs) =>
    new Promise((resolve) => {
      // Not execFile's own `timeout`: at its time that drops what the child wrote and, when the child
      // had already ended with 0 but the busy event loop had not yet heard so, reports that success
      // with an empty stdout (the extraction host's probe then read no program name). A signal alone
      // leaves a finished child's answer whole, and a child it ends fails as killed.
      const child = execFile(path, args, (error, stdout, stderr) => {
        clearTimeout(term);
        clearTimeout(kill);
        resolve(error ? { error, stderr } : { stdout });
      });
      let kill: ReturnType<typeof setTimeout> | undefined;
      const term = setTimeout(() => {
        child.kill("SIGTERM");
        kill = setTimeout(() => child.kill("SIGKILL"), killGraceMs);
      }, timeoutMs);
    }),
};
