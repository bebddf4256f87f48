// What differs between runtimes, handed in by each entry file: its HTTP server, and the
// capabilities the app is built on, among them the upstream HTTP client that relays media fastest
// on it (docs/relay-costs.md).
import type { Capabilities } from "../app-deps.ts";
import type { Db } from "../store/db.ts";
import type { Serve } from "./serve.ts";

export interface Runtime extends Capabilities {
  name: "node" | "bun" | "deno";
  serve: Serve;
  /** Opens the embedded store on a thread of its own (openPgliteThread); in the service's thread when absent. */
  openPgliteIn?: (folder: string) => Promise<Db>;
}

export type StopSignal = "SIGINT" | "SIGTERM";

/** The process an entry runs the service in: its environment, its signals, what nothing caught, its exit. */
export interface EntryProcess {
  env: Record<string, string | undefined>;
  onSignal(signal: StopSignal, stop: () => void): void;
  /** Hands `crashed` an exception nothing caught, or a rejection nothing handled, instead of the runtime's own report. */
  onUncaught(crashed: (error: unknown) => void): void;
  exit(code: number): never;
}
