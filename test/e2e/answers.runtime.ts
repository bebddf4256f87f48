import { resolve } from "node:path";
import { answersSuite } from "./answers.ts";

answersSuite({ name: "bun", command: [resolve("node_modules/.bin/bun"), "dist/bun.mjs"], ownParser: false });
answersSuite({
  name: "deno",
  command: [resolve("node_modules/.bin/deno"), "run", "--allow-all", "--unstable-no-legacy-abort", "dist/deno.mjs"],
  ownParser: true,
});
