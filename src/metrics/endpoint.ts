// GET /metrics: the Prometheus scrape target. With METRICS_TOKEN set it wants that token as a
// bearer token; the comparison is of SHA-256 digests in constant time, so neither the token's
// length nor its content leaks through timing.
import { bearerTokenOf } from "../auth/bearer.ts";
import { ApiError } from "../http/problem.ts";
import { sha256Hex, timingSafeEqual } from "../util/bytes.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export async function metricsResponse(request: Request, metrics: ServiceMetrics, token: string | undefined): Promise<Response> {
  await requireMetricsToken(request, token);
  const body = new TextEncoder().encode(metrics.render());
  return new Response(body, {
    headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "content-length": String(body.byteLength), "cache-control": "no-store" },
  });
}

/** Throws 401 unless the request bears `token`; passes everything when there is no token. */
export async function requireMetricsToken(request: Request, token: string | undefined): Promise<void> {
  if (token === undefined) return;
  const given = bearerTokenOf(request);
  const encoder = new TextEncoder();
  if (given !== null && timingSafeEqual(encoder.encode(await sha256Hex(given)), encoder.encode(await sha256Hex(token)))) return;
  throw new ApiError("invalid_metrics_token", "Send the operator's METRICS_TOKEN as `Authorization: Bearer <token>`.", {
    headers: { "www-authenticate": 'Bearer realm="metrics"' },
  });
}
