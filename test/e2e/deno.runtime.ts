import { resolve } from "node:path";
import { contractSuite } from "./contract.ts";

contractSuite({
  name: "deno",
  command: [resolve("node_modules/.bin/deno"), "run", "--allow-all", "--unstable-no-legacy-abort", "dist/deno.mjs"],
});
