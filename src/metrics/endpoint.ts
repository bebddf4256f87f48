// GET /metrics: the Prometheus scrape target, and the gate of the operator's other page
// (/platformz). With METRICS_TOKEN set they want that token as a bearer token; the comparison is
// of SHA-256 digests in constant time, so neither the token's length nor its content leaks
// through timing. Without one they answer only this machine: what they show (tool versions, the
// operator's extra hosts, why the gate refused a page) helps a stranger aim at the service.
import { bearerTokenOf } from "../auth/bearer.ts";
import {
  clientAddress,
  isLoopback,
  type Sender,
  type TrustedProxies,
  unnamedLocalProxy,
} from "../http/client-address.ts";
import { ApiError } from "../http/problem.ts";
import { sha256Hex, timingSafeEqual } from "../util/bytes.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Who may read the operator's pages: the bearer of `token`, or, without one, this machine. */
export interface OperatorAccess {
  token: string | undefined;
  trustProxy: TrustedProxies;
}

export async function metricsResponse(
  sender: Sender,
  metrics: ServiceMetrics,
  access: OperatorAccess,
): Promise<Response> {
  await requireOperator(sender, access);
  const body = new TextEncoder().encode(metrics.render());
  return new Response(body, {
    headers: {
      "content-type": PROMETHEUS_CONTENT_TYPE,
      "content-length": String(body.byteLength),
      "cache-control": "no-store",
    },
  });
}

const challenge = { headers: { "www-authenticate": 'Bearer realm="metrics"' } };

/** Throws 401 unless the request bears the token, or, when there is none, comes from this machine. */
export async function requireOperator(sender: Sender, { token, trustProxy }: OperatorAccess): Promise<void> {
  if (token === undefined) {
    if (fromThisMachine(sender, trustProxy)) return;
    throw new ApiError(
      "invalid_metrics_token",
      "This instance has no METRICS_TOKEN, so this page answers only requests from its own machine; the operator sets METRICS_TOKEN to read it from elsewhere.",
      challenge,
    );
  }
  const given = bearerTokenOf(sender.request);
  const encoder = new TextEncoder();
  if (
    given !== null && timingSafeEqual(encoder.encode(await sha256Hex(given)), encoder.encode(await sha256Hex(token)))
  ) return;
  throw new ApiError(
    "invalid_metrics_token",
    "Send the operator's METRICS_TOKEN as `Authorization: Bearer <token>`.",
    challenge,
  );
}

/**
 * A Unix socket or an in-process call (no peer), or a loopback client. A request a proxy of this
 * machine forwards is its client's, not the proxy's: loopback only when TRUST_PROXY names the
 * proxy and the client behind it is loopback too.
 */
function fromThisMachine(sender: Sender, trustProxy: TrustedProxies): boolean {
  if (sender.peer === undefined) return true;
  if (unnamedLocalProxy(sender, trustProxy) !== null) return false;
  return isLoopback(clientAddress(sender, trustProxy));
}
