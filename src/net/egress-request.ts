// A client's request to the egress gate, read from its head, and where the gate sends it once the
// address is checked. Pure: the gate (egress-gate.ts) does the checking and the answering.
import { authority, bareHost, type OutboundProxy, proxyAuthorization } from "./outbound-proxy.ts";

/** A request head the gate can act on: a CONNECT to host:port, or an absolute-form plain http request. */
export interface GateRequest {
  method: string;
  tunnel: boolean;
  url: URL;
  /** The host and port the client named. */
  named: { host: string; port: number };
  /** The header lines after the request line. */
  lines: string[];
  /** Header values by lower-case name. */
  headers: Map<string, string>;
}

/** Where the gate sends a client's bytes: a tunnel to host:port (through `proxy` when given), or an http proxy itself. */
export type GateRoute = { tunnel: { host: string; port: number; proxy: OutboundProxy | null } } | {
  proxy: OutboundProxy;
};

/** What the gate sends first: back to the client, and on to the source. */
export interface Opening {
  toClient: string;
  toSource: string;
}

// Hop-by-hop headers of the client's request that are not passed on (RFC 9110, 7.6.1).
const hopHeaders = /^(proxy-authorization|proxy-connection|connection|keep-alive|te|trailer|upgrade):/i;

/** The header values of a head by lower-case name (for the credentials, read before anything else). */
export function headersOf(head: string): { requestLine: string; lines: string[]; headers: Map<string, string> } {
  const [requestLine = "", ...lines] = head.slice(0, -4).split("\r\n");
  const headers = new Map(
    lines.map((
      line,
    ) => [line.slice(0, line.indexOf(":")).trim().toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  return { requestLine, lines, headers };
}

/** The request of a head (through its blank line); null when it is neither a CONNECT to host:port nor an absolute http URL. */
export function readGateRequest(head: string): GateRequest | null {
  const { requestLine, lines, headers } = headersOf(head);
  const [method = "", target = ""] = requestLine.split(" ");
  const tunnel = method === "CONNECT";
  const url = tunnel ? URL.parse(`http://${target}`) : URL.parse(target);
  // A CONNECT target always names its port (URL would drop an explicit ":80").
  const tunnelPort = /:(\d{1,5})$/.exec(target)?.[1];
  if (url === null || (tunnel ? tunnelPort === undefined : url.protocol !== "http:")) return null;
  const named = { host: bareHost(url.hostname), port: tunnel ? Number(tunnelPort) : Number(url.port) || 80 };
  return { method, tunnel, url, named, lines, headers };
}

/**
 * The route and first bytes for `request` to the checked `host:port`: a tunnel for a CONNECT; for
 * plain http, the request again with its hop-by-hop headers left out, in absolute form to an http
 * OUTBOUND_PROXY (naming the checked address; Host stays the name), else straight to the source.
 * One request per connection: the next one must be checked anew.
 */
export function routeOf(
  request: GateRequest,
  host: string,
  port: number,
  outbound: OutboundProxy | null,
): { route: GateRoute; opening: Opening } {
  const tunnelTo = { tunnel: { host, port, proxy: outbound } };
  if (request.tunnel) {
    return { route: tunnelTo, opening: { toClient: "HTTP/1.1 200 Connection Established\r\n\r\n", toSource: "" } };
  }
  const kept = request.lines.filter((line) => !hopHeaders.test(line)).join("\r\n");
  const path = request.url.pathname + request.url.search;
  if (outbound !== null && outbound.protocol !== "socks5:") {
    const auth = proxyAuthorization(outbound);
    const proxyHeader = auth ? `Proxy-Authorization: ${auth}\r\n` : "";
    return {
      route: { proxy: outbound },
      opening: {
        toClient: "",
        toSource: `${request.method} http://${
          authority(host, port)
        }${path} HTTP/1.1\r\n${kept}\r\n${proxyHeader}Connection: close\r\n\r\n`,
      },
    };
  }
  return {
    route: tunnelTo,
    opening: { toClient: "", toSource: `${request.method} ${path} HTTP/1.1\r\n${kept}\r\nConnection: close\r\n\r\n` },
  };
}
