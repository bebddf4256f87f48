// The process host on node:child_process, which Bun and Deno implement too.
import { spawn } from "node:child_process";
import type { ProcessHost, SpawnedChild } from "../../processes/process-host.ts";

export const nodeProcesses: ProcessHost = {
  pid: process.pid,
  env: process.env,
  spawn(command, args, options): SpawnedChild {
    const child = spawn(command, args, {
      stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      detached: true,
      env: options.env,
    });
    child.stderr!.setEncoding("utf8");
    // A child that exits before reading all of stdin closes the pipe; its exit code tells why.
    child.stdin?.on("error", () => {});
    return {
      pid: child.pid,
      endStdin: (text) => void child.stdin!.end(text),
      writeStdin: (text) => void child.stdin!.write(text),
      onStdout: (listener) =>
        void child.stdout!.on(
          "data",
          (chunk: Buffer) => listener(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
        ),
      pauseStdout: () => void child.stdout!.pause(),
      resumeStdout: () => void child.stdout!.resume(),
      stdoutPaused: () => child.stdout!.isPaused(),
      onStderr: (listener) => void child.stderr!.on("data", listener),
      onClose: (listener) => void child.once("close", listener),
      onError: (listener) => void child.once("error", listener),
      signalGroup(signal) {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, signal);
        } catch {
          // The whole group is gone.
        }
      },
    };
  },
};
