// What the app says of each request: one line at its response's head (the status, before the body
// could break), counted in the request metrics, and a second line once its body is over.
import { declaredLength } from "../http/content-length.ts";
import type { BodyEnd } from "../http/response-done.ts";
import { causeText, type Logger } from "../log.ts";
import { brokenTransferCause } from "../metrics/downloads.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";

/** What the request's path learns on its way: the route it matched, the key that made it. */
export interface RequestNotes {
  /** The matched route's pattern; unset for a path no route knows. */
  route?: string;
  apiKeyId?: string;
}

/** Logs and counts the answer to `request`; returns the route it is counted under. */
export function logRequest(
  log: Logger,
  metrics: ServiceMetrics,
  request: Request,
  response: Response,
  notes: RequestNotes,
  started: number,
): string {
  const seconds = (performance.now() - started) / 1000;
  // Only route patterns become labels; an unknown path could hold anything.
  const route = notes.route ?? "unmatched";
  metrics.requestServed(route, response.status, seconds);
  log.info("request", {
    method: request.method,
    route,
    path: new URL(request.url).pathname,
    status: response.status,
    durationMs: Math.round(seconds * 10_000) / 10,
    bytes: request.method === "HEAD" ? 0 : declaredLength(response),
    apiKeyId: notes.apiKeyId,
  });
  return route;
}

/** The second line, with the request's id, once its body is over. A body cut by an error is a warning. */
export function logBodyEnd(log: Logger, route: string, end: BodyEnd): void {
  if (end.ended === "complete") log.debug("body ended", { route, ended: end.ended });
  else if (end.ended === "cut by client") log.info("body ended", { route, ended: end.ended });
  else {log.warn("body ended", {
      route,
      ended: end.ended,
      cause: brokenTransferCause(end.error),
      error: causeText(end.error),
    });}
}
