// Counting one download: it is active from the key check until its response is over, and its
// size is the length it declares (page mode counts its own bytes as ffmpeg writes them).
import { declaredLength } from "../http/context.ts";
import { whenResponseDone } from "../http/response-done.ts";
import { isDirectUrl } from "../media/direct-hosts.ts";
import type { DownloadMode, ServiceMetrics } from "./service-metrics.ts";

/** Starts counting a download; call the returned function with its response. */
export function trackDownload(metrics: ServiceMetrics, request: Request, url: URL): (response: Response) => void {
  const mode = downloadModeOf(url);
  const done = metrics.downloadStarted(mode);
  return (response) => {
    const streaming = response.ok && response.body !== null && request.method !== "HEAD";
    const sent = streaming ? declaredLength(response) : null;
    if (sent !== null) metrics.relayedBytes(mode, sent);
    if (streaming) whenResponseDone(request, done);
    else done();
  };
}

/** Direct mode for X's media hosts, page mode for anything else the handler accepts. */
function downloadModeOf(url: URL): DownloadMode {
  const target = URL.parse(url.searchParams.get("url") ?? "");
  return target !== null && isDirectUrl(target) ? "direct" : "page";
}
