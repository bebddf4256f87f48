// Which extractor of the installed yt-dlp and gallery-dl claims a link: the service's own claims
// process (platforms/claims.ts), run by yt-dlp's interpreter as the service runs it.
import { createExtractorClaims, type ExtractorClaims } from "../../src/platforms/claims.ts";
import { findInterpreter } from "../../src/processes/extraction-host.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";
import { nodeToolRuns } from "../../src/runtime/node/tool-runs.ts";

/** A claims process of the installed tools; the caller closes it. */
export function installedToolClaims(): ExtractorClaims {
  return createExtractorClaims({
    processes: nodeProcesses,
    interpreter: async () => {
      const found = await findInterpreter(nodeToolRuns, "yt-dlp");
      return "interpreter" in found ? found.interpreter : null;
    },
    timeoutMs: 60_000,
  });
}
