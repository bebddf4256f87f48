// The one interface each runtime adapter implements: serve a Fetch handler on a TCP port or a
// Unix socket, and stop.
import type { Logger } from "../log.ts";
import type { ConnectionLimits } from "./connection-caps.ts";
export type FetchHandler = (request: Request) => Promise<Response>;

export type ListenOn = { port: number; hostname: string } | { path: string };

export interface RunningServer {
  /** http://host:port, or the socket path. */
  address: string;
  port?: number;
  /** Stops accepting connections; resolves once every response in flight has been sent. */
  close(): Promise<void>;
  /**
   * Ends the responses still in flight, as if each client went away: request signals abort and
   * response bodies are cancelled, and `close()` resolves. On Deno, a body that the runtime streams
   * natively cannot be stopped in-process; its connection closes when the process exits.
   */
  cut(): void;
}

/**
 * `log` hears what the app never sees: requests that are no URL, a handler that threw, refused
 * connections. `limits` bound the connections of a TCP server, as far as the runtime's server lets
 * us (docs/runtimes.md, Connections).
 */
export type Serve = (fetch: FetchHandler, on: ListenOn, log?: Logger, limits?: ConnectionLimits) => Promise<RunningServer>;
