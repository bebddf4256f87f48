// The one interface each runtime adapter implements: serve a Fetch handler on a TCP port or a
// Unix socket, and stop.
export type FetchHandler = (request: Request) => Promise<Response>;

export type ListenOn = { port: number; hostname: string } | { path: string };

export interface RunningServer {
  /** http://host:port, or the socket path. */
  address: string;
  port?: number;
  /** Stops accepting and resolves once open connections are closed. */
  close(): Promise<void>;
}

export type Serve = (fetch: FetchHandler, on: ListenOn) => Promise<RunningServer>;
