// What an authenticated API handler is given.
import type { AdmittedKey } from "../store/api-keys.ts";

export interface ApiContext {
  request: Request;
  url: URL;
  /** The key that made the request, with its counts after this request was counted. */
  key: AdmittedKey;
  /** The client the request came from, as one client counts for a limit (clientGroup of clientAddress). */
  client: string;
  now: Date;
}

export type ApiHandler = (ctx: ApiContext) => Promise<Response>;
