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
