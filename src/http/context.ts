// What an authenticated API handler is given.
import type { AdmittedKey } from "../store/api-keys.ts";

export interface ApiContext {
  request: Request;
  url: URL;
  /** The key that made the request, with its counts after this request was counted. */
  key: AdmittedKey;
  /** The client the request came from, as one client counts for a limit (clientGroup); unset when no address is known (a Unix socket). */
  client: string | undefined;
  now: Date;
}

export type ApiHandler = (ctx: ApiContext) => Promise<Response>;
