// Entry for Bun: `bun dist/bun.mjs`. Bun serves through its own implementation of node:http, not
// Bun.serve: Bun.serve drops the Content-Length of every streamed body and sends it chunked
// (oven-sh/bun#10507, still so in Bun 1.4), and a download must say its size. Relayed through
// node:http, Bun moves bytes as fast as through Bun.serve (README, Runtimes). Bun's fetch is its
// fastest upstream client (docs/relay-costs.md).
import { fetchUpstream } from "../media/relay-upstream.ts";
import { main } from "../service.ts";
import { nodeCapabilities } from "./node/capabilities.ts";
import { serveNode } from "./node-server.ts";

await main(
  process.env,
  { name: "bun", serve: serveNode, upstream: fetchUpstream, ...nodeCapabilities },
  (signal, stop) => process.once(signal, stop),
  (code) => process.exit(code),
);
