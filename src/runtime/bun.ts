// Entry for Bun: `bun dist/bun.mjs`. Bun serves through its own implementation of node:http, not
// Bun.serve: Bun.serve drops the Content-Length of every streamed body and sends it chunked
// (oven-sh/bun#10507, still so in Bun 1.4), and a download must say its size. The upstream is
// the node:net client of src/runtime/node/: its socket's own idle timer cuts a stalled source, and
// the adapter pipes its body as a Node stream. Bun's fetch needs a JavaScript stream around the
// body for that timer, which cost a third of the relay's speed (docs/runtimes.md). The embedded
// store runs on a thread of its own: in the relay's heap, PGlite doubled the CPU each relayed GiB
// cost.
import { main } from "../service.ts";
import { nodeProcess } from "./node/entry-process.ts";
import { openPgliteThread } from "../store/pglite-thread.ts";
import { nodeCapabilities } from "./node/capabilities.ts";
import { nodeUpstream } from "./node/relay-upstream.ts";
import { serveNode } from "./node-server.ts";

await main(
  { name: "bun", serve: serveNode, upstream: nodeUpstream, openPgliteIn: openPgliteThread, ...nodeCapabilities },
  nodeProcess,
);
