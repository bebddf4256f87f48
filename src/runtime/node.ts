// Entry for Node: `node dist/node.mjs`.
import "./node/node-floor.ts";
import "./node/v8-flags.ts";
import { nodeCapabilities } from "./node/capabilities.ts";
import { nodeUpstream } from "./node/relay-upstream.ts";
import { main } from "../service.ts";
import { nodeProcess } from "./node/entry-process.ts";
import { serveNode } from "./node-server.ts";

await main(
  { name: "node", serve: serveNode, upstream: nodeUpstream, ...nodeCapabilities },
  nodeProcess,
);
