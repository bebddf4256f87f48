// Black-box tests run the built bundles, as an operator would, also under Node's other LTS lines.
import { execFileSync } from "node:child_process";
import { installNodeLines } from "./helpers/node-lines.ts";
import { slowness } from "./helpers/slowness.ts";

export default function setup(): void {
  console.log(`every wait of the tests scaled by ${slowness} (TEST_SLOWNESS)`);
  execFileSync(process.execPath, ["build.mjs", "--quiet"], { stdio: "inherit" });
  installNodeLines();
}
