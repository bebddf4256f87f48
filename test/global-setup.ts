// Black-box tests run the built bundles, as an operator would.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["build.mjs", "--quiet"], { stdio: "inherit" });
}
