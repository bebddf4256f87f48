// Black-box tests run the built bundles, as an operator would, also under Node's other LTS lines.
import { execFileSync } from "node:child_process";
import { installNodeLines } from "./helpers/node-lines.ts";

export default function setup(): void {
  execFileSync(process.execPath, ["build.mjs", "--quiet"], { stdio: "inherit" });
  installNodeLines();
}
