// What differs between runtimes, handed in by each entry file: its HTTP server, and the upstream
// HTTP client that relays media fastest on it (docs/relay-costs.md).
import type { UpstreamClient } from "../media/relay-upstream.ts";
import type { Serve } from "./serve.ts";

export interface Runtime {
  name: "node" | "bun" | "deno";
  serve: Serve;
  upstream: UpstreamClient;
}
