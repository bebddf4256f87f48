// GET /platformz: the platform check's latest picture, each site with its remedy, for the operator
// (behind METRICS_TOKEN, like /metrics). It shows what is known and starts no check: a check
// fetches from the platforms, which only the operator's command or interval should cause.
import { json } from "../http/json-response.ts";
import { requireMetricsToken } from "../metrics/endpoint.ts";
import type { PlatformChecks } from "./checker.ts";

export async function platformsResponse(request: Request, checks: PlatformChecks, token: string | undefined): Promise<Response> {
  await requireMetricsToken(request, token);
  const platforms = checks.results();
  const failing = platforms.filter((result) => result.status !== "ok" && result.status !== "unchecked").map((result) => result.site);
  return json({ failing, platforms }, { headers: { "cache-control": "no-store" } });
}
