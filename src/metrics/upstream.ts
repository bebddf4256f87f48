// Counts calls to upstreams by wrapping the clients the upstream code is handed, so the code that
// talks to X and to media hosts stays as it is. Only the head of an answer is looked at; bodies
// pass through untouched.
import type { UpstreamClient } from "../media/relay-upstream.ts";
import type { ServiceMetrics, Upstream } from "./service-metrics.ts";

/** An answer that means "no such thing" or "not that part" is a working upstream; the rest is trouble. */
export function isHealthyStatus(status: number): boolean {
  return status < 400 || status === 404 || status === 410 || status === 416;
}

export function countedFetch(
  fetchFn: typeof fetch,
  upstreamOf: (url: string) => Upstream,
  metrics: ServiceMetrics,
): typeof fetch {
  const counted = async (input: RequestInfo | URL, init?: RequestInit) => {
    const upstream = upstreamOf(input instanceof Request ? input.url : String(input));
    try {
      const response = await fetchFn(input, init);
      metrics.upstreamCalled(upstream, isHealthyStatus(response.status));
      return response;
    } catch (error) {
      metrics.upstreamCalled(upstream, false);
      throw error;
    }
  };
  return counted as typeof fetch;
}

export function countedUpstream(client: UpstreamClient, metrics: ServiceMetrics): UpstreamClient {
  return async (request) => {
    try {
      const response = await client(request);
      metrics.upstreamCalled("media_host", isHealthyStatus(response.status));
      return response;
    } catch (error) {
      metrics.upstreamCalled("media_host", false);
      throw error;
    }
  };
}
