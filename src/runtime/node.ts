// Entry for Node: `node dist/node.mjs`.
import { nodeUpstream } from "../media/relay-node-upstream.ts";
import { main } from "../service.ts";
import { serveNode } from "./node-server.ts";

await main(
  process.env,
  { name: "node", serve: serveNode, upstream: nodeUpstream },
  (signal, stop) => process.once(signal, stop),
  (code) => process.exit(code),
);
