import { resolve } from "node:path";
import { contractSuite } from "./contract.ts";

contractSuite({ name: "bun", command: [resolve("node_modules/.bin/bun"), "dist/bun.mjs"] });
