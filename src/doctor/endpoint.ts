// GET /platformz: the platform check's latest picture, each site with its remedy, for the operator
// (behind METRICS_TOKEN, or this machine's alone, like /metrics). It shows what is known and
// starts no check: a check fetches from the platforms, which only the operator's command or
// interval should cause.
import { json } from "../http/json-response.ts";
import type { Sender } from "../http/client-address.ts";
import { type OperatorAccess, requireOperator } from "../metrics/endpoint.ts";
import type { PlatformChecks } from "./checker.ts";

export async function platformsResponse(
  sender: Sender,
  checks: PlatformChecks,
  access: OperatorAccess,
): Promise<Response> {
  await requireOperator(sender, access);
  const platforms = checks.results();
  const failing = platforms.filter((result) => result.status !== "ok" && result.status !== "unchecked").map((result) =>
    result.site
  );
  return json({ failing, platforms, extractionHost: checks.extractionNote() }, {
    headers: { "cache-control": "no-store" },
  });
}
