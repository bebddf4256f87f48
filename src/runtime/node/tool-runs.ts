// Running a media tool once to its end, for the start-up probe, on node:child_process.
import { execFile, execFileSync } from "node:child_process";
import type { ToolRuns } from "../../processes/tools.ts";

export const nodeToolRuns: ToolRuns = {
  runSync(path, args, timeoutMs) {
    try {
      return { stdout: execFileSync(path, args, { timeout: timeoutMs, stdio: ["ignore", "pipe", "pipe"] }).toString() };
    } catch (error) {
      return { error, stderr: String((error as { stderr?: Buffer }).stderr ?? "") };
    }
  },
  run: (path, args, timeoutMs) =>
    new Promise((resolve) => {
      execFile(path, args, { timeout: timeoutMs }, (error, stdout, stderr) => resolve(error ? { error, stderr } : { stdout }));
    }),
};
