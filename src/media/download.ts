// GET /api/v1/download?url=: direct mode relays a file from X's media CDN.
import type { ApiHandler } from "../http/context.ts";
import { requireUrlParam } from "../http/params.ts";
import { relayMedia, type RelayOptions } from "./relay.ts";

export function downloadHandler(relay: RelayOptions): ApiHandler {
  return async ({ request, url }) => {
    const target = requireUrlParam(url.searchParams);
    return relayMedia(
      {
        url: target,
        method: request.method === "HEAD" ? "HEAD" : "GET",
        range: request.headers.get("range"),
        signal: request.signal,
        filename: url.searchParams.get("filename") ?? undefined,
      },
      relay,
    );
  };
}
