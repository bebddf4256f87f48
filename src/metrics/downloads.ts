// Counting one download: the handler answers a Download, its response with the mode that made it
// (a relay from the media host is direct, ffmpeg's output is page), and it is active from then
// until the response is over; its size is the length it declares (page mode counts its own bytes as ffmpeg writes them).
// A body cut by an error is a broken transfer, counted by its cause.
import { declaredLength } from "../http/content-length.ts";
import { ApiError } from "../http/problem.ts";
import type { Download } from "../auth/api-context.ts";
import type { BodyEnd } from "../http/response-done.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Counts a download until `whenDone` says it is over; a plain response passes by. */
export function trackDownload(
  metrics: ServiceMetrics,
  request: Request,
  answered: Response | Download,
  whenDone: (callback: (end: BodyEnd) => void) => void,
): void {
  if (answered instanceof Response) return;
  const { response, mode } = answered;
  if (!response.ok || response.body === null || request.method === "HEAD") return;
  const done = metrics.downloadStarted(mode);
  const sent = declaredLength(response);
  if (sent !== null) metrics.relayedBytes(mode, sent);
  whenDone((end) => {
    done();
    if (end.ended === "cut by error") metrics.transferBroken(mode, brokenTransferCause(end.error));
  });
}

/**
 * Why a body was cut, as a label: the problem code of the error that cut it (page mode's are
 * all ApiErrors: source_not_streamable, upstream_failed, upstream_timeout,
 * file_too_large), or upstream_failed for a media host that broke off a direct relay.
 */
export function brokenTransferCause(error: unknown): string {
  return error instanceof ApiError ? error.code : "upstream_failed";
}
