// `npm run test:unit`: the tests of the pure modules, those that reach no server, child process,
// thread or store through their imports (test/helpers/unit-files.ts decides, by that rule), with
// neither the build nor the Node lines of the global setup: they need neither.
import { defineConfig } from "vitest/config";
import { unitTestFiles } from "./test/helpers/unit-files.ts";
import suite from "./vitest.config.ts";

const { globalSetup: _, ...test } = suite.test!;

export default defineConfig({ test: { ...test, include: unitTestFiles() } });
