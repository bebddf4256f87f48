import { resolve } from "node:path";
import { cobaltSuite } from "./compat.ts";

cobaltSuite({ name: "bun", command: [resolve("node_modules/.bin/bun"), "dist/bun.mjs"] });
cobaltSuite({
  name: "deno",
  command: [resolve("node_modules/.bin/deno"), "run", "--allow-all", "--unstable-no-legacy-abort", "dist/deno.mjs"],
});
