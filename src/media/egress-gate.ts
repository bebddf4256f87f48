// The egress gate: a forward proxy on a loopback port that yt-dlp (`--proxy`) and ffmpeg
// (`-http_proxy`) must use, so every connection they open, redirects, HLS segments and links a
// page names included, passes the address policy of egress.ts. It speaks CONNECT (https) and
// absolute-form plain HTTP; for each it checks host:port, connects to the address it checked (no
// second DNS answer), and answers 403 to anything else. It chains to the operator's
// OUTBOUND_PROXY when there is one. Only holders of a session's credentials (a random secret per
// start, handed to one child run at a time) may use it, and the session says what the gate
// refused for it and when its source last sent a byte. The runtime listens and moves the bytes
// (src/runtime/node/gate-listener.ts); what is allowed, and where it goes, is decided here.
import { ApiError } from "../http/problem.ts";
import { errorText } from "../log.ts";
import { connectFailureOf } from "../util/connect-failure.ts";
import { fromBase64Url, randomBytes, timingSafeEqual, toHex } from "../util/bytes.ts";
import { egressAddress, portOf, type EgressPolicy } from "./egress.ts";
import { authority, bareHost, proxyAuthorization, type OutboundProxy } from "./outbound-proxy.ts";

export interface GateSession {
  /** `http://<session>:<secret>@127.0.0.1:<port>` for the child's proxy option. */
  proxyUrl: string;
  /** The first endpoint the gate refused to this session, as 403 host_not_allowed; null when none. */
  refusal(): ApiError | null;
  /**
   * The first connection the gate could not open for this session, with why ("www.youtube.com:443:
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

export interface EgressGate {
  /** Fresh credentials for one child run; the gate starts listening on the first. */
  session(): Promise<GateSession>;
  close(): Promise<void>;
}

/** Where the gate sends a client's bytes: a tunnel to host:port (through `proxy` when given), or an http proxy itself. */
export type GateRoute = { tunnel: { host: string; port: number; proxy: OutboundProxy | null } } | { proxy: OutboundProxy };

/** A client's connection to the gate, once its request head has been read. */
export interface GateConnection {
  /** Sends `text` and closes. */
  end(text: string): void;
  /**
   * Connects by `route`, sends `opening.toClient` back and `opening.toSource` on, then passes bytes
   * both ways until either side closes; rejects when no connection could be opened.
   */
  forward(route: GateRoute, opening: { toClient: string; toSource: string }, onSourceBytes: () => void): Promise<void>;
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
  outbound: OutboundProxy | null;
  listen: ListenLoopback;
  /**
   * ORIGIN_OVERRIDES: host -> origin. A connection a child opens to such a host goes to the
   * origin's host and port instead (a local mirror, a test site); for a CONNECT the child's own
   * TLS runs through, so an https host needs an origin that answers TLS for its name.
   */
  originOverrides?: ReadonlyMap<string, string>;
}

interface SessionState {
  refused: ApiError | null;
  failed: string | null;
  lastSourceByte: number;
  connections: Set<GateConnection>;
  /** Checked playlists by path (servePlaylist). */
  playlists: Map<string, string>;
}

/** A host no DNS answers (RFC 6761 reserves .invalid): requests for it are the gate's own playlists. */
const PLAYLIST_HOST = "checked-playlists.invalid";

const maxHeadBytes = 64 * 1024;
// Hop-by-hop headers of the client's request that are not passed on (RFC 9110, 7.6.1).
const hopHeaders = /^(proxy-authorization|proxy-connection|connection|keep-alive|te|trailer|upgrade):/i;

export function createEgressGate(options: EgressGateOptions): EgressGate {
  const secret = toHex(randomBytes(24));
  const sessions = new Map<string, SessionState>();
  let listening: ReturnType<ListenLoopback> | null = null;

  function sessionOf(header: string | undefined): SessionState | undefined {
    const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
    if (!match) return undefined;
    let credentials: string;
    try {
      credentials = new TextDecoder().decode(fromBase64Url(match[1]!));
    } catch {
      return undefined;
    }
    const [id = "", given = ""] = credentials.split(":", 2);
    const encoder = new TextEncoder();
    const equal = given.length === secret.length && timingSafeEqual(encoder.encode(given), encoder.encode(secret));
    return equal ? sessions.get(id) : undefined;
  }

  async function handle(head: string, client: GateConnection): Promise<void> {
    const [requestLine = "", ...lines] = head.slice(0, -4).split("\r\n");
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).trim().toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
    const session = sessionOf(headers.get("proxy-authorization"));
    if (session === undefined) {
      return answer(client, "407 Proxy Authentication Required", 'Proxy-Authenticate: Basic realm="egress"\r\n');
    }
    session.connections.add(client);
    client.onClose(() => session.connections.delete(client));
    const [method = "", target = ""] = requestLine.split(" ");
    const tunnel = method === "CONNECT";
    const url = tunnel ? URL.parse(`http://${target}`) : URL.parse(target);
    // A CONNECT target always names its port (URL would drop an explicit ":80").
    const tunnelPort = /:(\d{1,5})$/.exec(target)?.[1];
    if (url === null || (tunnel ? tunnelPort === undefined : url.protocol !== "http:")) {
      return answer(client, "400 Bad Request");
    }
    if (!tunnel && url.hostname === PLAYLIST_HOST) return servePlaylist(client, session.playlists.get(url.pathname));
    const named = { host: bareHost(url.hostname), port: tunnel ? Number(tunnelPort) : Number(url.port) || 80 };
    // The operator's override origin is trusted as it is (trustedEndpoints names it).
    const override = URL.parse(options.originOverrides?.get(named.host) ?? "");
    const { host: hostname, port } = override === null ? named : { host: bareHost(override.hostname), port: portOf(override) };
    let address: string | null;
    try {
      address = await egressAddress(hostname, port, options.policy);
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) {
        session.refused ??= new ApiError("host_not_allowed", `The source led to ${authority(named.host, named.port)}, which this server may not fetch from (not a public address).`, { cause: error.cause });
        return answer(client, "403 Forbidden");
      }
      session.failed ??= failureText(authority(named.host, named.port), error);
      return answer(client, "502 Bad Gateway");
    }
    const host = address ?? hostname;
    const tunnelTo = { tunnel: { host, port, proxy: options.outbound } };
    let route: GateRoute;
    let opening: { toClient: string; toSource: string };
    if (tunnel) {
      route = tunnelTo;
      opening = { toClient: "HTTP/1.1 200 Connection Established\r\n\r\n", toSource: "" };
    } else {
      // One request per connection: the next one on this connection must be checked anew.
      const kept = lines.filter((line) => !hopHeaders.test(line));
      const path = url.pathname + url.search;
      const outbound = options.outbound;
      if (outbound !== null && outbound.protocol !== "socks5:") {
        // An http proxy gets the absolute form, naming the checked address; Host stays the name.
        const auth = proxyAuthorization(outbound);
        route = { proxy: outbound };
        opening = { toClient: "", toSource: `${method} http://${authority(host, port)}${path} HTTP/1.1\r\n${kept.join("\r\n")}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}Connection: close\r\n\r\n` };
      } else {
        route = tunnelTo;
        opening = { toClient: "", toSource: `${method} ${path} HTTP/1.1\r\n${kept.join("\r\n")}\r\nConnection: close\r\n\r\n` };
      }
    }
    await client.forward(route, opening, () => (session.lastSourceByte = Date.now())).catch((error: unknown) => {
      session.failed ??= failureText(authority(named.host, named.port), error);
      answer(client, "502 Bad Gateway");
    });
  }

  return {
    async session() {
      listening ??= options.listen((head, connection) => void handle(head, connection), maxHeadBytes);
      const { port } = await listening;
      const id = toHex(randomBytes(9));
      const state: SessionState = { refused: null, failed: null, lastSourceByte: Date.now(), connections: new Set(), playlists: new Map() };
      sessions.set(id, state);
      return {
        proxyUrl: `http://${id}:${secret}@127.0.0.1:${port}`,
        refusal: () => state.refused,
        failure: () => state.failed,
        lastSourceByte: () => state.lastSourceByte,
        servePlaylist(playlist) {
          const path = `/${state.playlists.size + 1}.m3u8`;
          state.playlists.set(path, playlist);
          return `http://${PLAYLIST_HOST}${path}`;
        },
        close() {
          sessions.delete(id);
          for (const connection of state.connections) connection.destroy();
        },
      };
    },
    async close() {
      for (const state of sessions.values()) for (const connection of state.connections) connection.destroy();
      sessions.clear();
      if (listening === null) return;
      await (await listening).close();
    },
  };
}

function servePlaylist(client: GateConnection, playlist: string | undefined): void {
  if (playlist === undefined) return answer(client, "404 Not Found");
  const type = "Content-Type: application/vnd.apple.mpegurl\r\nCache-Control: no-store\r\n";
  client.end(`HTTP/1.1 200 OK\r\n${type}Content-Length: ${new TextEncoder().encode(playlist).length}\r\nConnection: close\r\n\r\n${playlist}`);
}

/** "host:port: connection refused (connect ECONNREFUSED 127.0.0.1:9)". */
function failureText(endpoint: string, error: unknown): string {
  const detail = errorText(error instanceof ApiError && error.cause !== undefined ? error.cause : error);
  return `${endpoint}: ${connectFailureOf(error) ?? "could not connect"} (${detail})`;
}

/**
 * What a child's failure is answered with: the gate's refusal when it refused the child an endpoint
 * (that, not how the child failed, is what happened), else the failure itself, with why the gate
 * could not connect, if it could not, leading its cause for the log.
 */
export function gateVerdict<E>(session: GateSession | undefined, error: E): E | ApiError {
  const refused = session?.refusal();
  if (refused) return refused;
  const failure = session?.failure();
  if (!failure || !(error instanceof ApiError)) return error;
  const cause = new Error(`the egress gate could not connect to ${failure} and answered the tool 502; the tool said: ${errorText(error.cause)}`);
  return new ApiError(error.code, error.message, { headers: error.headers, cause });
}

function answer(client: GateConnection, status: string, extra = ""): void {
  client.end(`HTTP/1.1 ${status}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
}
