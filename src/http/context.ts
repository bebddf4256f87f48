// What an authenticated API handler is given.
import type { LinkMaker } from "../auth/download-links.ts";
import type { AdmittedKey } from "../store/api-keys.ts";

export interface ApiContext {
  request: Request;
  url: URL;
  /** The key that made the request, with its counts after this request was counted. */
  key: AdmittedKey;
  now: Date;
  /** Signs download links for this key (the records' `downloadUrl`). */
  links: LinkMaker;
}

export type ApiHandler = (ctx: ApiContext) => Promise<Response>;
