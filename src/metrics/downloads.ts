// Counting one download: the handler says which mode made its response (a relay from the media
// host is direct, ffmpeg's output is page), and it is active from then until the response is
// over; its size is the length it declares (page mode counts its own bytes as ffmpeg writes them).
import { declaredLength } from "../http/content-length.ts";
import { whenResponseDone } from "../http/response-done.ts";
import type { DownloadMode, ServiceMetrics } from "./service-metrics.ts";

const modes = new WeakMap<Response, DownloadMode>();

/** For the download handler: `response` is a download made in `mode`. */
export function downloadResponse(response: Response, mode: DownloadMode): Response {
  modes.set(response, mode);
  return response;
}

/** Counts `response` when a handler marked it as a download; anything else passes by. */
export function trackDownload(metrics: ServiceMetrics, request: Request, response: Response): void {
  const mode = modes.get(response);
  if (mode === undefined || !response.ok || response.body === null || request.method === "HEAD") return;
  const done = metrics.downloadStarted(mode);
  const sent = declaredLength(response);
  if (sent !== null) metrics.relayedBytes(mode, sent);
  whenResponseDone(request, done);
}
