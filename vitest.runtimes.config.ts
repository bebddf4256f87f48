// The contract suite under the runtimes other than the Node that runs the tests (Node 22 and 26,
// Bun, Deno): `npm run test:runtimes`, which CI runs after `npm test`. `npm test` runs it under
// that Node (test/e2e/node.test.ts), and the runtime-specific files of test/runtime/ and
// test/e2e/answers.test.ts under Bun and Deno too.
import { defineConfig } from "vitest/config";
import suite from "./vitest.config.ts";

export default defineConfig({ test: { ...suite.test, include: ["test/e2e/*.runtime.ts"] } });
