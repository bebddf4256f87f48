// Entry for Node: `node dist/node.mjs`.
import { main } from "../service.ts";
import { serveNode } from "./node-server.ts";

await main(process.env, serveNode, (signal, stop) => process.once(signal, stop), (code) => process.exit(code));
