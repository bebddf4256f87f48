// What an authenticated API handler is given.
import type { AdmittedKey } from "../store/api-keys.ts";

export interface ApiContext {
  request: Request;
  url: URL;
  /** The key that made the request, with its counts after this request was counted. */
  key: AdmittedKey;
  now: Date;
}

export type ApiHandler = (ctx: ApiContext) => Promise<Response>;

export function json(data: unknown, init: ResponseInit = {}): Response {
  const body = new TextEncoder().encode(JSON.stringify(data));
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  // Declared, so the request log and metrics know the size without reading the body.
  headers.set("content-length", String(body.byteLength));
  return new Response(body, { ...init, headers });
}

/**
 * The body size a response declares. Counting bytes as they pass would put code on every chunk
 * of a relay (docs/relay-costs.md), so a streamed body of unknown length is counted where it is
 * produced, and here it is null.
 */
export function declaredLength(response: Response): number | null {
  const value = response.headers.get("content-length");
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}
