// The operator's OUTBOUND_PROXY: every connection the service opens (X's APIs, the direct relay,
// and through the egress gate yt-dlp and ffmpeg) can leave through it. A tunnel is a plain TCP
// connection to the target, a CONNECT through an http(s) proxy, or a SOCKS5 CONNECT; TLS to the
// target, when wanted, runs inside it. Its credentials never appear in a log or an error.
import net from "node:net";
import tls from "node:tls";
import { parseIPv6 } from "./address-class.ts";

export interface OutboundProxy {
  protocol: "http:" | "https:" | "socks5:";
  host: string;
  port: number;
  username: string;
  password: string;
}

const defaultPorts = { "http:": 80, "https:": 443, "socks5:": 1080 } as const;

/** Parses an http://, https:// or socks5:// proxy URL; null when it is none of those. */
export function parseOutboundProxy(text: string): OutboundProxy | null {
  const url = URL.parse(text.trim());
  if (url === null || !(url.protocol in defaultPorts) || url.hostname === "" || (url.pathname !== "" && url.pathname !== "/")) return null;
  const protocol = url.protocol as OutboundProxy["protocol"];
  return {
    protocol,
    host: bareHost(url.hostname),
    port: Number(url.port) || defaultPorts[protocol],
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/** A URL's hostname without the brackets of an IPv6 literal, as sockets and DNS want it. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1");
}

/** host:port as a request target or Host value, IPv6 in brackets. */
export function authority(host: string, port: number): string {
  return `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** `Proxy-Authorization` for an http(s) proxy with credentials, else null. */
export function proxyAuthorization(proxy: OutboundProxy): string | null {
  if (proxy.username === "" && proxy.password === "") return null;
  return `Basic ${Buffer.from(`${proxy.username}:${proxy.password}`).toString("base64")}`;
}

/** How long a proxy may take to set up a tunnel. */
const handshakeTimeoutMs = 15_000;

/** A connected socket to the http(s) proxy itself (for CONNECT, or for absolute-form requests). */
export function connectToProxy(proxy: OutboundProxy): Promise<net.Socket> {
  if (proxy.protocol === "https:") {
    return connected(tls.connect({ host: proxy.host, port: proxy.port, servername: net.isIP(proxy.host) ? undefined : proxy.host }), "secureConnect");
  }
  return connected(net.connect({ host: proxy.host, port: proxy.port }), "connect");
}

/**
 * A socket whose bytes reach host:port, through `proxy` when one is given. The caller passes an
 * address it has already checked, so the proxy connects exactly there.
 */
export async function openTunnel(host: string, port: number, proxy: OutboundProxy | null): Promise<net.Socket> {
  if (proxy === null) return connected(net.connect({ host, port }), "connect");
  const socket = proxy.protocol === "socks5:" ? await connected(net.connect({ host: proxy.host, port: proxy.port }), "connect") : await connectToProxy(proxy);
  socket.setTimeout(handshakeTimeoutMs, () => socket.destroy(new Error("The outbound proxy did not answer in time.")));
  try {
    if (proxy.protocol === "socks5:") await socks5Connect(socket, proxy, host, port);
    else await httpConnect(socket, proxy, host, port);
  } catch (error) {
    socket.destroy();
    throw error;
  }
  socket.setTimeout(0);
  return socket;
}

function connected<T extends net.Socket>(socket: T, event: "connect" | "secureConnect"): Promise<T> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    socket.once("error", onError);
    socket.once(event, () => {
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

async function httpConnect(socket: net.Socket, proxy: OutboundProxy, host: string, port: number): Promise<void> {
  const target = authority(host, port);
  const auth = proxyAuthorization(proxy);
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`);
  const head = (await readFrom(socket, (buffer) => {
    const end = buffer.indexOf("\r\n\r\n");
    return end < 0 ? -1 : end + 4;
  })).toString("latin1");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
  if (status !== "200") throw new Error(`The outbound proxy refused the tunnel (${status ?? "no HTTP answer"}).`);
}

// RFC 1928 CONNECT, with RFC 1929 user/password when the URL has credentials.
async function socks5Connect(socket: net.Socket, proxy: OutboundProxy, host: string, port: number): Promise<void> {
  const withAuth = proxy.username !== "" || proxy.password !== "";
  socket.write(Buffer.from(withAuth ? [5, 1, 2] : [5, 1, 0]));
  const [version, method] = await readFrom(socket, fixed(2));
  if (version !== 5 || method !== (withAuth ? 2 : 0)) throw new Error("The SOCKS5 proxy accepts none of our authentication methods.");
  if (withAuth) {
    const user = Buffer.from(proxy.username);
    const pass = Buffer.from(proxy.password);
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const [, status] = await readFrom(socket, fixed(2));
    if (status !== 0) throw new Error("The SOCKS5 proxy refused our credentials.");
  }
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), socksAddress(host), Buffer.from([port >> 8, port & 0xff])]));
  const reply = await readFrom(socket, (buffer) => {
    if (buffer.length < 5) return -1;
    const size = buffer[3] === 1 ? 4 : buffer[3] === 4 ? 16 : 1 + buffer[4]!;
    return buffer.length >= 4 + size + 2 ? 4 + size + 2 : -1;
  });
  if (reply[1] !== 0) throw new Error(`The SOCKS5 proxy could not connect (reply ${reply[1]}).`);
}

function socksAddress(host: string): Buffer {
  if (net.isIPv4(host)) return Buffer.from([1, ...host.split(".").map(Number)]);
  const groups = parseIPv6(host);
  if (groups !== null) return Buffer.from([4, ...groups.flatMap((group) => [group >> 8, group & 0xff])]);
  const name = Buffer.from(host);
  return Buffer.from([3, name.length, ...name]);
}

const fixed = (size: number) => (buffer: Buffer) => (buffer.length >= size ? size : -1);

/**
 * Reads from `socket` until `complete` says how many bytes make the message; what came after
 * them is put back for whoever reads next.
 */
export function readFrom(socket: net.Socket, complete: (buffer: Buffer) => number, maxBytes = 16 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const cleanup = () => {
      socket.off("data", onData);
      socket.off("error", onEnd);
      socket.off("close", onEnd);
    };
    const onEnd = (error?: unknown) => {
      cleanup();
      reject(error instanceof Error ? error : new Error("The connection closed during the handshake."));
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const size = complete(buffer);
      if (size < 0 && buffer.length <= maxBytes) return;
      cleanup();
      socket.pause();
      if (size < 0) return reject(new Error("The handshake message is too large."));
      if (buffer.length > size) socket.unshift(buffer.subarray(size));
      resolve(buffer.subarray(0, size));
    };
    socket.on("data", onData);
    socket.once("error", onEnd);
    socket.once("close", onEnd);
    // An earlier read paused the socket, and a paused socket does not flow for a new listener.
    socket.resume();
  });
}
