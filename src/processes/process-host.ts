// What the service needs from its runtime to run a media tool: start a process, signal its group,
// and know its own pid and environment. src/runtime/ implements it; the rest of the service
// speaks only this.

export type GroupSignal = "SIGTERM" | "SIGKILL";

/** A started child, as thin as the runtime's own handle: the stream logic is child-stream.ts's. */
export interface SpawnedChild {
  /** Undefined when the process could not be started (an error follows). */
  pid: number | undefined;
  /** Writes `text` to stdin and closes it; only for a child started with `stdin: true`. */
  endStdin(text: string): void;
  /** Writes `text` to stdin and keeps it open (a long-lived child fed messages); same condition. */
  writeStdin(text: string): void;
  onStdout(listener: (chunk: Uint8Array) => void): void;
  pauseStdout(): void;
  resumeStdout(): void;
  stdoutPaused(): boolean;
  onStderr(listener: (text: string) => void): void;
  /** Once the process exited and stdout ended: its exit code, null when a signal ended it. */
  onClose(listener: (code: number | null) => void): void;
  /** The process could not be started. */
  onError(listener: (error: Error) => void): void;
  /** Signals the child's process group, even when its leader has gone; nothing when the group has. */
  signalGroup(signal: GroupSignal): void;
}

export interface ProcessHost {
  /** Starts `command` as the leader of a process group of its own, with exactly `env`. */
  spawn(
    command: string,
    args: readonly string[],
    options: { stdin: boolean; env: Record<string, string> },
  ): SpawnedChild;
  /** This service's process id. */
  pid: number;
  /** This service's environment, of which a child gets a few variables. */
  env: Readonly<Record<string, string | undefined>>;
}
