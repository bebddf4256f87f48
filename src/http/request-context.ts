// What a route's handler is given, an API operation's and an owner's page alike: the request as it
// came, who made it once the path has found out (`caller`: an admitted key, a signed-in owner), and
// what the adapter and the router knew of it. Each path adds what only its handlers need.
import type { Logger } from "../log.ts";
import type { Params } from "./router.ts";

export interface RequestContext<Caller = undefined> {
  request: Request;
  url: URL;
  /** Its lines carry the request's id, as its answer does. */
  log: Logger;
  /** The socket's peer, as the server adapter said (clientAddress reads the client behind a trusted proxy from it). */
  peer: string | undefined;
  /** The path's `{name}` segments (`/api/v1/jobs/{id}`), as the router matched them. */
  params: Params;
  /** When the request arrived, by the app's clock: what its limits and its answer count from. */
  now: Date;
  /** Who made the request, as its path admitted them; undefined before anyone is known (a public page). */
  caller: Caller;
}
