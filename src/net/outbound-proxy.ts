// The operator's OUTBOUND_PROXY: every connection the service opens (X's APIs, the direct relay,
// and through the egress gate yt-dlp and ffmpeg) can leave through it. A tunnel is a plain TCP
// connection to the target, a CONNECT through an http(s) proxy, or a SOCKS5 CONNECT; TLS to the
// target, when wanted, runs inside it. Its credentials never appear in a log or an error. This
// module holds the proxy's address and the bytes of each handshake; the runtime's tunnels
// (src/runtime/node/tunnels.ts) send and read them.
import { parseIPv4, parseIPv6 } from "../util/ip-address.ts";
import { toBase64 } from "../util/bytes.ts";

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
  if (
    url === null || !(url.protocol in defaultPorts) || url.hostname === "" ||
    (url.pathname !== "" && url.pathname !== "/")
  ) return null;
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

/** host:port as a request target or Host value, IPv6 in brackets (only an IPv6 literal has a colon). */
export function authority(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** `Proxy-Authorization` for an http(s) proxy with credentials, else null. */
export function proxyAuthorization(proxy: OutboundProxy): string | null {
  if (proxy.username === "" && proxy.password === "") return null;
  return `Basic ${toBase64(new TextEncoder().encode(`${proxy.username}:${proxy.password}`))}`;
}

/** How long a proxy may take to set up a tunnel. */
export const handshakeTimeoutMs = 15_000;

/** The length of an HTTP head (through its blank line) at the start of `bytes`; -1 while it is incomplete. */
export function headLength(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (bytes[i - 3] === 13 && bytes[i - 2] === 10 && bytes[i - 1] === 13 && bytes[i] === 10) return i + 1;
  }
  return -1;
}

/** An http(s) proxy's CONNECT request for host:port. */
export function connectRequest(proxy: OutboundProxy, host: string, port: number): string {
  const target = authority(host, port);
  const auth = proxyAuthorization(proxy);
  return `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`;
}

/** Throws unless the proxy's answer head to CONNECT is a 200. */
export function checkConnectAnswer(head: string): void {
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
  if (status !== "200") throw new Error(`The outbound proxy refused the tunnel (${status ?? "no HTTP answer"}).`);
}

// RFC 1928 CONNECT, with RFC 1929 user/password when the URL has credentials. Each step is a
// message to send and the length of the answer to read.
const withCredentials = (proxy: OutboundProxy) => proxy.username !== "" || proxy.password !== "";

export const socks5 = {
  greeting: (proxy: OutboundProxy) => Uint8Array.from(withCredentials(proxy) ? [5, 1, 2] : [5, 1, 0]),
  checkGreetingAnswer(proxy: OutboundProxy, [version, method]: Uint8Array): void {
    if (version !== 5 || method !== (withCredentials(proxy) ? 2 : 0)) {
      throw new Error("The SOCKS5 proxy accepts none of our authentication methods.");
    }
  },
  /** Null when the proxy takes no credentials. */
  credentials(proxy: OutboundProxy): Uint8Array | null {
    if (!withCredentials(proxy)) return null;
    const user = new TextEncoder().encode(proxy.username);
    const pass = new TextEncoder().encode(proxy.password);
    return Uint8Array.from([1, user.length, ...user, pass.length, ...pass]);
  },
  checkCredentialsAnswer([, status]: Uint8Array): void {
    if (status !== 0) throw new Error("The SOCKS5 proxy refused our credentials.");
  },
  connect: (host: string, port: number) => Uint8Array.from([5, 1, 0, ...socksAddress(host), port >> 8, port & 0xff]),
  /** The length of the CONNECT reply at the start of `bytes`; -1 while it is incomplete. */
  connectAnswerLength(bytes: Uint8Array): number {
    if (bytes.length < 5) return -1;
    const size = bytes[3] === 1 ? 4 : bytes[3] === 4 ? 16 : 1 + bytes[4]!;
    return bytes.length >= 4 + size + 2 ? 4 + size + 2 : -1;
  },
  checkConnectAnswer(reply: Uint8Array): void {
    if (reply[1] !== 0) throw new Error(`The SOCKS5 proxy could not connect (reply ${reply[1]}).`);
  },
};

function socksAddress(host: string): number[] {
  if (parseIPv4(host) !== null) return [1, ...host.split(".").map(Number)];
  const groups = parseIPv6(host);
  if (groups !== null) return [4, ...groups.flatMap((group) => [group >> 8, group & 0xff])];
  const name = new TextEncoder().encode(host);
  return [3, name.length, ...name];
}

/** A reader's rule for a message of `size` bytes. */
export const fixedLength = (size: number) => (bytes: Uint8Array) => (bytes.length >= size ? size : -1);
