// The one seam between the relay and a runtime's HTTP client. The entry file picks the client:
// `nodeUpstream` (node:http, fastest on Node) or `fetchUpstream` (Bun's and Deno's fast path).

import type { Readable } from "node:stream";

export interface UpstreamRequest {
  url: URL;
  method: "GET" | "HEAD";
  headers: Record<string, string>;
  signal: AbortSignal;
  /** An already vetted IP address to connect to, so a second DNS answer cannot differ. */
  address?: string;
}

export interface UpstreamResponse {
  status: number;
  headers: Headers;
  /** Null for HEAD. Cancelling it closes the upstream connection. */
  body: ReadableStream<Uint8Array> | null;
  /** Node clients only: the Readable behind `body`, unread, for src/http/node-body.ts. */
  nodeBody?: Readable;
}

/** Sends one request without following redirects; rejects only when no response head arrived. */
export type UpstreamClient = (request: UpstreamRequest) => Promise<UpstreamResponse>;

/**
 * Upstream client on the runtime's fetch. Bun and Deno hand a fetched body to their server without
 * running JavaScript per chunk. It cannot pin the connection to `address` (fetch has no lookup
 * hook), so the address check is done on a separate resolution.
 */
export const fetchUpstream: UpstreamClient = async ({ url, method, headers, signal }) => {
  const response = await fetch(url, { method, headers, signal, redirect: "manual" });
  const body = method === "HEAD" ? null : response.body;
  if (method === "HEAD") await response.body?.cancel();
  return { status: response.status, headers: response.headers, body };
};
