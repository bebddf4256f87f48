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
