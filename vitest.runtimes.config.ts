// The suites that run the built service under a runtime, run under the runtimes other than the
// Node that runs the tests: the contract suite under Node 22 and 26, Bun and Deno, and the
// connection and answer suites under Bun (and Deno): `npm run test:runtimes`, the
// `test/**/*.runtime.ts` files, which CI runs after `npm test`. `npm test` runs each under that
// Node (its `.test.ts` file).
import { defineConfig } from "vitest/config";
import suite from "./vitest.config.ts";

export default defineConfig({ test: { ...suite.test, include: ["test/**/*.runtime.ts"] } });
