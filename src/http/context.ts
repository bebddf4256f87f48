// What an authenticated API handler is given.
import type { Admission } from "../store/api-keys.ts";

export type AdmittedKey = NonNullable<Admission["key"]>;

export interface ApiContext {
  request: Request;
  url: URL;
  /** The key that made the request, with its counts after this request was counted. */
  key: AdmittedKey;
  now: Date;
}

export type ApiHandler = (ctx: ApiContext) => Promise<Response>;

export function json(data: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(data), { ...init, headers });
}
