// The egress gate: a forward proxy on a loopback port that yt-dlp (`--proxy`) and ffmpeg
// (`-http_proxy`) must use, so every connection they open, redirects, HLS segments and links a
// page names included, passes the address policy of egress.ts. It speaks CONNECT (https) and
// absolute-form plain HTTP; for each it checks host:port, connects to the address it checked (no
// second DNS answer), and answers 403 to anything else. It chains to the operator's
// OUTBOUND_PROXY when there is one. Only holders of a session's credentials (a random secret per
// start, handed to one child run at a time) may use it, and the session says what the gate
// refused for it and when its source last sent a byte.
import { randomBytes, timingSafeEqual } from "node:crypto";
import net from "node:net";
import { ApiError } from "../http/problem.ts";
import { egressAddress, type EgressPolicy } from "./egress.ts";
import { authority, bareHost, connectToProxy, openTunnel, proxyAuthorization, readFrom, type OutboundProxy } from "./outbound-proxy.ts";

export interface GateSession {
  /** `http://<session>:<secret>@127.0.0.1:<port>` for the child's proxy option. */
  proxyUrl: string;
  /** The first endpoint the gate refused to this session, as 403 host_not_allowed; null when none. */
  refusal(): ApiError | null;
  /** When a byte last came from the source, in ms since the epoch (the session's start before any). */
  lastSourceByte(): number;
  /** Ends the session's connections and its credentials. */
  close(): void;
}

export interface EgressGate {
  /** Fresh credentials for one child run; the gate starts listening on the first. */
  session(): Promise<GateSession>;
  close(): Promise<void>;
}

export interface EgressGateOptions {
  policy: EgressPolicy;
  outbound: OutboundProxy | null;
}

interface SessionState {
  refused: ApiError | null;
  lastSourceByte: number;
  sockets: Set<net.Socket>;
}

const maxHeadBytes = 64 * 1024;
// Hop-by-hop headers of the client's request that are not passed on (RFC 9110, 7.6.1).
const hopHeaders = /^(proxy-authorization|proxy-connection|connection|keep-alive|te|trailer|upgrade):/i;

export function createEgressGate(options: EgressGateOptions): EgressGate {
  const secret = randomBytes(24).toString("hex");
  const sessions = new Map<string, SessionState>();
  const server = net.createServer((socket) => void handle(socket));
  // The gate must not keep the process alive on its own (tests build apps without stopping them).
  server.unref();
  let listening: Promise<number> | null = null;

  function listen(): Promise<number> {
    listening ??= new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
    return listening;
  }

  function sessionOf(header: string | undefined): SessionState | undefined {
    const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
    if (!match) return undefined;
    const [id = "", given = ""] = Buffer.from(match[1]!, "base64").toString().split(":", 2);
    const equal = given.length === secret.length && timingSafeEqual(Buffer.from(given), Buffer.from(secret));
    return equal ? sessions.get(id) : undefined;
  }

  async function handle(client: net.Socket): Promise<void> {
    client.on("error", () => {});
    client.setTimeout(30_000, () => client.destroy());
    let head: string;
    try {
      head = (await readFrom(client, headEnd, maxHeadBytes)).toString("latin1");
    } catch {
      return void client.destroy();
    }
    client.setTimeout(0);
    const [requestLine = "", ...lines] = head.slice(0, -4).split("\r\n");
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).trim().toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
    const session = sessionOf(headers.get("proxy-authorization"));
    if (session === undefined) {
      return answer(client, "407 Proxy Authentication Required", 'Proxy-Authenticate: Basic realm="egress"\r\n');
    }
    session.sockets.add(client);
    client.once("close", () => session.sockets.delete(client));
    const [method = "", target = ""] = requestLine.split(" ");
    const tunnel = method === "CONNECT";
    const url = tunnel ? URL.parse(`http://${target}`) : URL.parse(target);
    // A CONNECT target always names its port (URL would drop an explicit ":80").
    const tunnelPort = /:(\d{1,5})$/.exec(target)?.[1];
    if (url === null || (tunnel ? tunnelPort === undefined : url.protocol !== "http:")) {
      return answer(client, "400 Bad Request");
    }
    const port = tunnel ? Number(tunnelPort) : Number(url.port) || 80;
    const hostname = bareHost(url.hostname);
    let address: string | null;
    try {
      address = await egressAddress(url.hostname, port, options.policy);
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) {
        session.refused ??= new ApiError(403, "host_not_allowed", `The source led to ${authority(hostname, port)}, which this server may not fetch from (not a public address).`);
        return answer(client, "403 Forbidden");
      }
      return answer(client, "502 Bad Gateway");
    }
    const host = address ?? hostname;
    let upstream: net.Socket;
    let requestHead: string;
    try {
      if (tunnel) {
        upstream = await openTunnel(host, port, options.outbound);
        requestHead = "";
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      } else {
        // One request per connection: the next one on this connection must be checked anew.
        const kept = lines.filter((line) => !hopHeaders.test(line));
        const path = url.pathname + url.search;
        const outbound = options.outbound;
        if (outbound !== null && outbound.protocol !== "socks5:") {
          // An http proxy gets the absolute form, naming the checked address; Host stays the name.
          upstream = await connectToProxy(outbound);
          const auth = proxyAuthorization(outbound);
          requestHead = `${method} http://${authority(host, port)}${path} HTTP/1.1\r\n${kept.join("\r\n")}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}Connection: close\r\n\r\n`;
        } else {
          upstream = await openTunnel(host, port, outbound);
          requestHead = `${method} ${path} HTTP/1.1\r\n${kept.join("\r\n")}\r\nConnection: close\r\n\r\n`;
        }
      }
    } catch {
      return answer(client, "502 Bad Gateway");
    }
    session.sockets.add(upstream);
    upstream.once("close", () => session.sockets.delete(upstream));
    splice(client, upstream, requestHead, () => (session.lastSourceByte = Date.now()));
  }

  return {
    async session() {
      const port = await listen();
      const id = randomBytes(9).toString("hex");
      const state: SessionState = { refused: null, lastSourceByte: Date.now(), sockets: new Set() };
      sessions.set(id, state);
      return {
        proxyUrl: `http://${id}:${secret}@127.0.0.1:${port}`,
        refusal: () => state.refused,
        lastSourceByte: () => state.lastSourceByte,
        close() {
          sessions.delete(id);
          for (const socket of state.sockets) socket.destroy();
        },
      };
    },
    async close() {
      for (const state of sessions.values()) for (const socket of state.sockets) socket.destroy();
      sessions.clear();
      if (listening === null) return;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function headEnd(buffer: Buffer): number {
  const end = buffer.indexOf("\r\n\r\n");
  return end < 0 ? -1 : end + 4;
}

function answer(client: net.Socket, status: string, extra = ""): void {
  client.end(`HTTP/1.1 ${status}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
}

// Both directions at once; either side closing ends the other.
function splice(client: net.Socket, upstream: net.Socket, requestHead: string, onSourceBytes: () => void): void {
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
  // A clean end is passed on by pipe() once the bytes are out; anything else cuts the client.
  upstream.on("close", () => upstream.readableEnded || client.destroy());
  client.on("close", () => upstream.destroy());
  if (requestHead !== "") upstream.write(requestHead);
  upstream.on("data", onSourceBytes);
  upstream.pipe(client);
  client.pipe(upstream);
  client.resume();
}
