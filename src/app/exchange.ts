// One request as the app's paths see it: what the adapter handed in with it, the request's logger,
// the end of its response, and what the path learns on its way for the request's log line.
import type { ClientProgress } from "../http/client-stall.ts";
import { ApiError } from "../http/problem.ts";
import type { ResponseEnd } from "../http/response-done.ts";
import type { Logger } from "../log.ts";
import type { RequestNotes } from "./request-log.ts";

export interface Exchange {
  request: Request;
  url: URL;
  /** The socket's peer, as the adapter said. */
  peer: string | undefined;
  /** The adapter's reading of the client's progress past the socket buffers, where it has one. */
  clientProgress: ClientProgress | undefined;
  /** Its lines carry the request's id, as its answer does. */
  log: Logger;
  end: ResponseEnd;
  notes: RequestNotes;
}

/** 405 for a path that `allow`s other methods. */
export function methodNotAllowed(allow: string[]): ApiError {
  return new ApiError("method_not_allowed", `Use ${allow.join(" or ")} here.`, {
    headers: { allow: allow.join(", ") },
  });
}
