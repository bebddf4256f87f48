// Entry for Deno: `deno run --allow-all --unstable-no-legacy-abort dist/deno.mjs` from the folder
// whose node_modules holds the database drivers.
import { fetchUpstream } from "../media/relay-upstream.ts";
import { main } from "../service.ts";
import { Deno } from "./deno-api.ts";
import { serveDeno } from "./deno-server.ts";
import { nodeCapabilities } from "./node/capabilities.ts";

await main(
  Deno.env.toObject(),
  { name: "deno", serve: serveDeno, upstream: fetchUpstream, ...nodeCapabilities },
  (signal, stop) => Deno.addSignalListener(signal, stop),
  (code) => Deno.exit(code),
);
