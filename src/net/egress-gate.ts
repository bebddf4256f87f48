// The egress gate: a forward proxy on a loopback port that yt-dlp (`--proxy`) and ffmpeg
// (`-http_proxy`) must use, so every connection they open, redirects, HLS segments and links a
// page names included, passes the address policy of egress.ts. It speaks CONNECT (https) and
// absolute-form plain HTTP; for each it checks host:port, connects to the address it checked (no
// second DNS answer), and answers 403 to anything else. It chains to the operator's proxy
// for the connection's host when there is one (outbound-routes.ts: a platform's, else OUTBOUND_PROXY). Only holders of a session's credentials (a random secret per
// start, handed to one child run at a time) may use it, and the session says what the gate
// refused for it and when its source last sent a byte; an extraction's session is held to a
// budget of bytes and time (egress-budget.ts). The runtime listens and moves the bytes
// (src/runtime/node/gate-listener.ts); what is allowed, and where it goes, is decided here.
import { ApiError } from "../http/problem.ts";
import { errorText } from "../log.ts";
import { connectFailureOf } from "../util/connect-failure.ts";
import type { ExtractionBudget, Traffic } from "./egress-budget.ts";
import {
  type GateRequest,
  type GateRoute,
  headersOf,
  type Opening,
  readGateRequest,
  routeOf,
} from "./egress-request.ts";
import { gateSessions, type SessionState } from "./egress-sessions.ts";
import { egressAddress, type EgressPolicy, portOf } from "./egress.ts";
import { authority, bareHost } from "./outbound-proxy.ts";
import type { OutboundRoutes } from "./outbound-routes.ts";

export interface GateSession {
  /** `http://<session>:<secret>@127.0.0.1:<port>` for the child's proxy option. */
  proxyUrl: string;
  /** The first endpoint the gate refused to this session, as 403 host_not_allowed; null when none. */
  refusal(): ApiError | null;
  /** The budget an extraction's session passed (egress-budget.ts), as 502 source_too_large; null when none. */
  overBudget(): ApiError | null;
  /**
   * The first connection the gate could not open for this session, with why ("www.example.com:443:
   * host not found"); null when none. The child only hears "502 Bad Gateway" from the gate.
   */
  failure(): string | null;
  /** When a byte last came from the source, in ms since the epoch (the session's start before any). */
  lastSourceByte(): number;
  /**
   * Keeps `playlist` for this session's client and says the http:// URL it is served at, through
   * the gate only: how ffmpeg reads HLS playlists the service has checked (hls-playlists.ts).
   */
  servePlaylist(playlist: string): string;
  /** Ends the session's connections and its credentials. */
  close(): void;
}

/**
 * What a session is for: an extraction (yt-dlp, gallery-dl reading pages and API answers), which
 * the gate holds to its budget, or media (ffmpeg), held to MAX_DOWNLOAD_BYTES by what it sends.
 */
export type SessionUse = "extraction" | "media";

export interface EgressGate {
  /** Fresh credentials for one child run; the gate starts listening on the first. */
  session(use: SessionUse): Promise<GateSession>;
  close(): Promise<void>;
}

export type { GateRoute } from "./egress-request.ts";
export type { Traffic } from "./egress-budget.ts";

/** A client's connection to the gate, once its request head has been read. */
export interface GateConnection {
  /** Sends `text` and closes. */
  end(text: string): void;
  /**
   * Connects by `route`, sends `opening.toClient` back and `opening.toSource` on, then passes bytes
   * both ways, telling `traffic` of them, until either side closes; rejects when no connection
   * could be opened.
   */
  forward(route: GateRoute, opening: Opening, traffic: Traffic): Promise<void>;
  /** Cuts this connection and the one it was forwarded to. */
  destroy(): void;
  onClose(listener: () => void): void;
}

/**
 * The runtime's loopback listener: hands over each connection with its request head (through
 * the blank line), and cuts a client that sends no head of at most `maxHeadBytes` in time.
 */
export type ListenLoopback = (
  onRequest: (head: string, connection: GateConnection) => void,
  maxHeadBytes: number,
) => Promise<{ port: number; close(): Promise<void> }>;

export interface EgressGateOptions {
  policy: EgressPolicy;
  /** Which proxy each connection leaves through (a platform's, OUTBOUND_PROXY, none). */
  outbound: OutboundRoutes;
  listen: ListenLoopback;
  /**
   * ORIGIN_OVERRIDES: host -> origin. A connection a child opens to such a host goes to the
   * origin's host and port instead (a local mirror, a test site); for a CONNECT the child's own
   * TLS runs through, so an https host needs an origin that answers TLS for its name.
   */
  originOverrides?: ReadonlyMap<string, string>;
  /** What an extraction's session may read (EXTRACT_MAX_BYTES, EXTRACT_BODY_TIMEOUT_S); none when left out. */
  extractionBudget?: ExtractionBudget;
}

/** A host no DNS answers (RFC 6761 reserves .invalid): requests for it are the gate's own playlists. */
const PLAYLIST_HOST = "checked-playlists.invalid";

const maxHeadBytes = 64 * 1024;

export function createEgressGate(options: EgressGateOptions): EgressGate {
  const sessions = gateSessions();
  let listening: ReturnType<ListenLoopback> | null = null;

  async function handle(head: string, client: GateConnection): Promise<void> {
    const session = sessions.byAuthorization(headersOf(head).headers.get("proxy-authorization"));
    if (session === undefined) {
      return answer(client, "407 Proxy Authentication Required", 'Proxy-Authenticate: Basic realm="egress"\r\n');
    }
    session.connections.add(client);
    client.onClose(() => session.connections.delete(client));
    // A session past its budget reads nothing more (a tool that retries hears 502 at once).
    if (session.meter.spent() !== null) return answer(client, "502 Bad Gateway");
    const request = readGateRequest(head);
    if (request === null) return answer(client, "400 Bad Request");
    if (!request.tunnel && request.url.hostname === PLAYLIST_HOST) {
      return servePlaylist(client, session.playlists.get(request.url.pathname));
    }
    const endpoint = authority(request.named.host, request.named.port);
    const target = await checkedTarget(request, options, session, client);
    if (target === null) return;
    const proxy = session.proxyFor(request.named.host);
    const { route, opening } = routeOf(request, target.host, target.port, proxy);
    await client.forward(route, opening, sessions.traffic(session, endpoint)).then(
      () => proxy !== null && options.outbound.answered(proxy),
      (error: unknown) => {
        session.failed ??= failureText(endpoint, error);
        // No connection to the proxy itself (not its refusal of a tunnel, which is the source's): set it aside.
        const why = connectFailureOf(error);
        if (proxy !== null && why !== null) options.outbound.failed(proxy, why);
        answer(client, "502 Bad Gateway");
      },
    );
  }

  return {
    async session(use) {
      listening ??= options.listen((head, connection) => void handle(head, connection), maxHeadBytes);
      const { port } = await listening;
      const { id, secret, state } = sessions.open(
        use === "extraction" ? (options.extractionBudget ?? null) : null,
        options.outbound.run(),
      );
      return {
        proxyUrl: `http://${id}:${secret}@127.0.0.1:${port}`,
        refusal: () => state.refused,
        overBudget: () => state.meter.spent(),
        failure: () => state.failed,
        lastSourceByte: () => state.lastSourceByte,
        servePlaylist(playlist) {
          const path = `/${state.playlists.size + 1}.m3u8`;
          state.playlists.set(path, playlist);
          return `http://${PLAYLIST_HOST}${path}`;
        },
        close: () => sessions.close(id),
      };
    },
    async close() {
      sessions.closeAll();
      if (listening === null) return;
      await (await listening).close();
    },
  };
}

/**
 * Where `request` may connect: the operator's override origin (trusted as it is; trustedEndpoints
 * names it), else the name the client gave, at an address the policy checked (no second DNS
 * answer). Null after answering the client 403 or 502, which the session records.
 */
async function checkedTarget(
  request: GateRequest,
  options: EgressGateOptions,
  session: SessionState,
  client: GateConnection,
): Promise<{ host: string; port: number } | null> {
  const { named } = request;
  const override = URL.parse(options.originOverrides?.get(named.host) ?? "");
  const { host, port } = override === null ? named : { host: bareHost(override.hostname), port: portOf(override) };
  try {
    return { host: (await egressAddress(host, port, options.policy)) ?? host, port };
  } catch (error) {
    const endpoint = authority(named.host, named.port);
    if (error instanceof ApiError && error.status === 403) {
      session.refused ??= new ApiError(
        "host_not_allowed",
        `The source led to ${endpoint}, which this server may not fetch from (not a public address).`,
        { cause: error.cause },
      );
      answer(client, "403 Forbidden");
    } else {
      session.failed ??= failureText(endpoint, error);
      answer(client, "502 Bad Gateway");
    }
    return null;
  }
}

function servePlaylist(client: GateConnection, playlist: string | undefined): void {
  if (playlist === undefined) return answer(client, "404 Not Found");
  const type = "Content-Type: application/vnd.apple.mpegurl\r\nCache-Control: no-store\r\n";
  client.end(
    `HTTP/1.1 200 OK\r\n${type}Content-Length: ${
      new TextEncoder().encode(playlist).length
    }\r\nConnection: close\r\n\r\n${playlist}`,
  );
}

/** "host:port: connection refused (connect ECONNREFUSED 127.0.0.1:9)". */
function failureText(endpoint: string, error: unknown): string {
  const detail = errorText(error instanceof ApiError && error.cause !== undefined ? error.cause : error);
  return `${endpoint}: ${connectFailureOf(error) ?? "could not connect"} (${detail})`;
}

/**
 * What a child's failure is answered with: the gate's refusal when it refused the child an endpoint,
 * or the budget its session passed (that, not how the child failed, is what happened), else the failure itself, with why the gate
 * could not connect, if it could not, leading its cause for the log.
 */
export function gateVerdict<E>(session: GateSession | undefined, error: E): E | ApiError {
  const refused = session?.refusal() ?? session?.overBudget();
  if (refused) return refused;
  const failure = session?.failure();
  if (!failure || !(error instanceof ApiError)) return error;
  const cause = new Error(
    `the egress gate could not connect to ${failure} and answered the tool 502; the tool said: ${
      errorText(error.cause)
    }`,
  );
  return new ApiError(error.code, error.message, { headers: error.headers, cause });
}

function answer(client: GateConnection, status: string, extra = ""): void {
  client.end(`HTTP/1.1 ${status}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
}
