// Counts calls to upstreams: the media relay's by wrapping the client it is handed, so the relay
// stays as it is (only the head of an answer is looked at; bodies pass through untouched); the
// service's own readers' through their outbound client's report (app-deps.ts).
import type { ServiceMetrics } from "./service-metrics.ts";

/** All that counting needs of a client: an answer with a status, or a rejection (the relay's UpstreamClient is one). */
type AnsweringClient<Sent, Answer extends { status: number }> = (request: Sent) => Promise<Answer>;

/** An answer that means "no such thing" or "not that part" is a working upstream; the rest is trouble. */
export function isHealthyStatus(status: number): boolean {
  return status < 400 || status === 404 || status === 410 || status === 416;
}

export function countedUpstream<Sent, Answer extends { status: number }>(
  client: AnsweringClient<Sent, Answer>,
  metrics: ServiceMetrics,
): AnsweringClient<Sent, Answer> {
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
