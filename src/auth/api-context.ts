// What an authenticated API handler is given, and what it answers: a request's context whose caller
// is the key the store admitted, with the links signed for that key, so it stands on auth's floor,
// above the store.
import type { LinkMaker } from "./link-caller.ts";
import type { AdmittedKey } from "../store/api-keys.ts";
import type { ClientProgress } from "../http/client-stall.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { BodyEnd } from "../http/response-done.ts";

/** Who makes an API call. */
export interface KeyCaller {
  /** The key that made the request, with its counts after this request was counted. */
  key: AdmittedKey;
}

export interface ApiContext extends RequestContext<KeyCaller> {
  /** The client the request came from, as one client counts for a limit (clientGroup); unset when no address is known (a Unix socket). */
  client: string | undefined;
  /** Runs `callback` once, when the response is over (sent, or abandoned): what a download holds is held until then. */
  whenDone(callback: (end: BodyEnd) => void): void;
  /** The adapter's reading of the client's progress past the socket buffers, where it has one: the client-stall cut asks it. */
  clientProgress: ClientProgress | undefined;
  /** Signs download links for this key (the records' `downloadUrl`). */
  links: LinkMaker;
  /** Signs links to another operation's `path` for this key (a job's `archiveUrl`). */
  linkTo(path: string): LinkMaker;
}

/** A download's response and the mode that made it: a relay from the media host is direct, ffmpeg's output is page. */
export interface Download {
  response: Response;
  mode: "direct" | "page";
}

/** A handler answers a response, or a download, which the app counts as one (metrics/downloads.ts). */
export type ApiHandler = (ctx: ApiContext) => Promise<Response | Download>;
