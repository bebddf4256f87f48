// Entry for Deno: `deno run --allow-all --unstable-no-legacy-abort dist/deno.mjs` from the folder
// whose node_modules holds the database drivers.
import { fetchUpstream } from "../net/relay-upstream.ts";
import { main } from "../service.ts";
import { denoProcess } from "./deno-process.ts";
import { serveDeno } from "./deno-server.ts";
import { nodeCapabilities } from "./node/capabilities.ts";

await main(
  { name: "deno", serve: serveDeno, upstream: fetchUpstream, ...nodeCapabilities },
  denoProcess,
);
