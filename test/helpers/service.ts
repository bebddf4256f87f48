// Runs the built service (dist/) as a child process, as an operator would, and the admin CLI.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { scaled } from "./slowness.ts";

export interface RunningService {
  url: string;
  child: ChildProcess;
  output: string[];
  /** SIGTERM, then wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** What every process of the service the tests start gets of the environment. */
export const baseEnv = () => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  no_proxy: "127.0.0.1,localhost",
});

/** How the built service is started under Node; each runtime has its own (test/e2e/*.test.ts). */
export const nodeCommand = [process.execPath, "dist/node.mjs"];

/** Starts `command` in `cwd` (the clone unless given). */
export async function startService(
  env: Record<string, string>,
  command: string[] = nodeCommand,
  cwd = process.cwd(),
  /**
   * How long it may take to listen before it is called stuck: 1-2 s on a quiet machine, but the suite's
   * own workers (four on two cores) can make a start ten times slower, beyond what the slowness measured
   * at its start saw.
   */
  startMs = scaled(60_000),
): Promise<RunningService> {
  const [executable, ...args] = command;
  const child = spawn(executable!, args, {
    cwd,
    env: { ...baseEnv(), PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    // A service that does not start in time is killed, and the promise fails once it has exited:
    // it must not live on and write into a data folder the caller then removes.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, startMs);
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        output.push(line);
        const match = /listening on (http:\/\/[^\s"]+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      }
    };
    child.stdout!.on("data", onLine);
    child.stderr!.on("data", onLine);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${timedOut ? `service did not start within ${startMs / 1000} s` : `service exited with ${code}`}:\n${
            output.join("\n")
          }`,
        ),
      );
    });
  });
  return {
    url,
    child,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = await once(child, "exit");
      return code as number | null;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runAdmin(args: string[], env: Record<string, string>, stdin = ""): Promise<CliResult> {
  const child = spawn(process.execPath, ["dist/admin.mjs", ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdin.end(stdin);
  const [code] = await once(child, "exit");
  return { code: code as number | null, stdout, stderr };
}
