import { contractSuite } from "./contract.ts";

contractSuite({ name: "node", command: process.execPath, entry: "dist/node.mjs" });
