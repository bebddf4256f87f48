// The adapter protocol: what a runtime's server adapter and the app hand each other. An adapter
// serves a `Served` (the app, or the admin channel) on a TCP port or a Unix socket: for each request
// it hands `answer` the Request and an `Arrival`, sends the `Reply`'s response (or its native body),
// and calls the reply's `done` once the response is over. What never became a Request, or an answer
// that failed, it answers with `refuse`, the app's error sink. This file declares all of it, and
// imports nothing of the runtime, so the app may name it and a new runtime's adapter be written
// from it alone.
import type { Logger } from "../log.ts";
import type { TrustedProxies } from "../http/client-address.ts";

/** What the adapter knows of a request that its Request cannot say. */
export interface Arrival {
  /** The socket peer's address as the runtime reports it (`::ffff:` forms too); undefined on a Unix socket. */
  peer: string | undefined;
  /**
   * The request's id, chosen once by the adapter with requestIdFrom(X-Request-Id): its own log lines
   * and the app's name it, and the answer carries it.
   */
  requestId: string;
  /**
   * A reading of how far the client has taken the response, past the socket buffers (Node on Linux:
   * the kernel's count of bytes not yet acknowledged): two readings differ when the client took
   * something in between. Without it, or where it reads undefined, a client that a full buffer
   * hides looks stalled (CLIENT_STALL_TIMEOUT_S).
   */
  clientProgress?: () => string | undefined;
}

/** How a response's body ended: sent in full, cut because the client went away, or cut by an error. */
export type BodyEnd = { ended: "complete" } | { ended: "cut by client" } | { ended: "cut by error"; error: unknown };

/**
 * The runtime's own object a response's body reads from (on Node and Bun, the upstream socket's
 * Readable). An adapter that knows its type may send it instead of `response.body`, skipping Web
 * Streams on the byte path (docs/relay-costs.md); whichever of the two is read first gets the bytes.
 */
export interface NativeBody {
  body: unknown;
  /**
   * Cut the response when the client has taken nothing for this long while bytes wait for it
   * (CLIENT_STALL_TIMEOUT_S): `response.body` watches that itself, a native body cannot.
   */
  stallTimeoutMs?: number;
}

/** What the app hands back for a request. */
export interface Reply {
  response: Response;
  nativeBody?: NativeBody;
  /**
   * The adapter calls it once, when the response has been sent in full or abandoned, and says how:
   * a download holds its slot until then. An adapter that cannot tell may leave it to the request's
   * signal, whose abort counts as "cut by client".
   */
  done(end: BodyEnd): void;
}

/** What an adapter serves. */
export interface Served {
  answer(request: Request, arrival: Arrival): Promise<Reply>;
  /**
   * The answer to what never became a Request (a target that is no URL, what the HTTP parser
   * refused, CONNECT), or to an `answer` that threw: the app's error sink, with its CORS headers
   * and the request's id.
   */
  refuse(error: unknown, requestId: string): Response;
}

export type FetchHandler = (request: Request) => Promise<Response>;

export type ListenOn = { port: number; hostname: string } | { path: string };

/** What the service asks of a TCP server's connections (connection-caps.ts reads them from the settings). */
export interface ConnectionLimits {
  /** How long a connection may take to send a complete request head (from being opened, or from its previous response). */
  headTimeoutMs: number;
  /** Connections held open at once, in all. */
  maxConnections: number;
  /** Connections one client (clientGroup of the socket's peer) holds open at once. */
  maxPerClient: number;
  /** Peers the per-client cap does not apply to: every client behind them shares their address. */
  trustedProxies: TrustedProxies;
  /** How long a request body may take before bodyMinRate applies to it. */
  bodyGraceMs: number;
  /** Bytes a second a request body must average after its grace (connection-caps.ts, bodyTooSlow). */
  bodyMinRate: number;
}

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
export type Serve = (served: Served, on: ListenOn, log?: Logger, limits?: ConnectionLimits) => Promise<RunningServer>;
