// A file ffmpeg would read, asked for its first byte alone, as ffmpeg would ask (the headers and
// cookies its source gave, through the egress gate's proxy): whether it answers at all, before a
// job says its item's file can be served (run-plan.ts `requireAnswers`).
import { ApiError, upstreamFailed } from "../http/problem.ts";
import type { UpstreamClient } from "../net/relay-upstream.ts";
import type { FfmpegInput } from "./ffmpeg.ts";
import { MAX_REDIRECTS, REDIRECT_STATUSES, statusError } from "./relay.ts";

/** Resolves once `input` answers 200 or 206 (redirects followed); throws the problem a download would meet. */
export async function firstByteOf(upstream: UpstreamClient, input: FfmpegInput, signal: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { "accept-encoding": "identity", range: "bytes=0-0", ...input.headers };
  // Set-Cookie syntax, each cookie ffmpeg would send: its name=value.
  if (input.cookies?.length) headers.cookie = input.cookies.map((cookie) => cookie.split(";")[0]!.trim()).join("; ");
  for (let url = new URL(input.url), hops = 0;; hops++) {
    let response;
    try {
      response = await upstream({ url, method: "GET", headers, signal });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (signal.aborted) {
        throw new ApiError("upstream_timeout", "The media host did not answer in time; try again later.");
      }
      throw upstreamFailed("The media host could not be reached; try again later.", { cause: error });
    }
    await response.body?.cancel();
    const location = response.headers.get("location");
    if (REDIRECT_STATUSES.has(response.status) && location !== null && hops < MAX_REDIRECTS) {
      url = new URL(location, url);
      continue;
    }
    if (response.status === 200 || response.status === 206) return;
    throw statusError(response.status, response.headers);
  }
}
