// The capabilities on node:* modules, which Node, Bun and Deno all implement; each entry adds the
// upstream client that is fastest on it.
import type { Capabilities } from "../../app-deps.ts";
import { resolveWithDns } from "./dns.ts";
import { nodeFiles } from "./files.ts";
import { listenLoopback } from "./gate-listener.ts";
import { automaticJsRuntime } from "./js-runtime.ts";
import { nodeProcesses } from "./processes.ts";
import { createNodeUpstream } from "./relay-upstream.ts";
import { nodeToolRuns } from "./tool-runs.ts";

export const nodeCapabilities: Omit<Capabilities, "upstream"> = {
  proxiedUpstream: createNodeUpstream,
  processes: nodeProcesses,
  toolRuns: nodeToolRuns,
  resolveHost: resolveWithDns,
  listenLoopback,
  files: nodeFiles,
  automaticJsRuntime,
};
