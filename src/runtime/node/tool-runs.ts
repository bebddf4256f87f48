// Running a media tool once to its end, for the start-up probe, on node:child_process.
import { execFile } from "node:child_process";
import type { ToolRuns } from "../../processes/tools.ts";

export const nodeToolRuns: ToolRuns = {
  run: (path, args, timeoutMs) =>
    new Promise((resolve) => {
      execFile(path, args, { timeout: timeoutMs }, (error, stdout, stderr) =>
        resolve(error ? { error, stderr } : { stdout }));
    }),
};
