// Counting one download: the handler says which mode made its response (a relay from the media
// host is direct, ffmpeg's output is page), and it is active from then until the response is
// over; its size is the length it declares (page mode counts its own bytes as ffmpeg writes them).
// A body cut by an error is a broken transfer, counted by its cause.
import { declaredLength } from "../http/content-length.ts";
import { ApiError } from "../http/problem.ts";
import type { BodyEnd } from "../http/response-done.ts";
import type { DownloadMode, ServiceMetrics } from "./service-metrics.ts";

const modes = new WeakMap<Response, DownloadMode>();

/** For the download handler: `response` is a download made in `mode`. */
export function downloadResponse(response: Response, mode: DownloadMode): Response {
  modes.set(response, mode);
  return response;
}

/** Counts `response` when a handler marked it as a download, until `whenDone` says it is over; anything else passes by. */
export function trackDownload(
  metrics: ServiceMetrics,
  request: Request,
  response: Response,
  whenDone: (callback: (end: BodyEnd) => void) => void,
): void {
  const mode = modes.get(response);
  if (mode === undefined || !response.ok || response.body === null || request.method === "HEAD") return;
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
