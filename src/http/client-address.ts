// Who sent a request. Only the server adapter knows the socket's peer, which it hands the app with
// the request (runtime/serve.ts, Arrival). Behind a reverse proxy every peer is the proxy; when TRUST_PROXY names it, the
// client is read from X-Forwarded-For, walking from the right and skipping the hops that are trusted
// proxies themselves. The left-most entry is whatever the client wrote (a proxy appends to the
// header, it does not replace it), so trusting it would let one client pose as any address it likes.
import { isPublicAddress } from "../util/address-class.ts";
import { mappedIPv4, parseIPv4, parseIPv6 } from "../util/ip-address.ts";

type Ip = { v4: number } | { v6: number[] };
type TrustedProxy = { ip: Ip; bits: number };
export type TrustedProxies = readonly TrustedProxy[];

/** A request and the socket peer it came from, as the server adapter said (none on a Unix socket). */
export interface Sender {
  request: Request;
  peer: string | undefined;
}

/** The client's address as the service sees it: the peer's, or the last untrusted forwarded hop. */
export function clientAddress({ request, peer }: Sender, trusted: TrustedProxies): string {
  if (peer === undefined) return "unknown";
  let client = parseIp(peer);
  if (client === null) return peer;
  if (isTrusted(client, trusted)) {
    for (const hop of forwardedHops(request).reverse()) {
      // A hop that is no address cannot be told apart from a forgery; stop at the last one we trust.
      const ip = parseIp(hop);
      if (ip === null) break;
      client = ip;
      if (!isTrusted(ip, trusted)) break;
    }
  }
  return formatIp(client);
}

/**
 * The peer, when it looks like a proxy of the operator's that TRUST_PROXY does not name: it sends
 * X-Forwarded-For from a loopback or private address. Then every client behind it counts as that
 * one address. A public peer is never suggested: anyone on the internet can send the header.
 */
export function unnamedLocalProxy({ request, peer }: Sender, trusted: TrustedProxies): string | null {
  const ip = peer === undefined ? null : parseIp(peer);
  if (ip === null || !request.headers.has("x-forwarded-for") || isTrusted(ip, trusted)) return null;
  const address = formatIp(ip);
  return isPublicAddress(address) ? null : address;
}

const forwardedHops = (request: Request) =>
  (request.headers.get("x-forwarded-for") ?? "").split(",").map((hop) => hop.trim()).filter(Boolean);

/** This machine's loopback blocks; a dual-stack socket's ::ffff:127.x is read as 127.x (parseIp). */
const loopback: TrustedProxies = [{ ip: { v4: parseIPv4("127.0.0.0")! }, bits: 8 }, {
  ip: { v6: parseIPv6("::1")! },
  bits: 128,
}];

/** Whether `address` (a client `clientAddress` names) is this machine itself. */
export function isLoopback(address: string): boolean {
  return isTrustedProxy(address, loopback);
}

/** Whether `address` is one of the reverse proxies TRUST_PROXY names. */
export function isTrustedProxy(address: string, trusted: TrustedProxies): boolean {
  const ip = parseIp(address);
  return ip !== null && isTrusted(ip, trusted);
}

/**
 * What counts as one client for a limit: an IPv4 address, or an IPv6 /64, the block one home or
 * server is given, so that a client cannot escape a limit by walking through its own addresses.
 */
export function clientGroup(address: string): string {
  return blockOf(address, 32, 64);
}

/**
 * The wider network a client's address lies in: an IPv4 /24 or an IPv6 /48, what one provider's
 * customer or one server host commonly holds. A limit that many clients may share, for an
 * attacker who holds many addresses of one block.
 */
export function clientNetwork(address: string): string {
  return blockOf(address, 24, 48);
}

/** `address` cut to its first `v4Bits` or `v6Bits` bits, as `a.b.c.d/n` or `x:x::/n`; a bare address at full width. */
function blockOf(address: string, v4Bits: number, v6Bits: number): string {
  const ip = parseIp(address);
  if (ip === null) return address;
  if ("v4" in ip) {
    if (v4Bits === 32) return formatIp(ip);
    return `${formatIp({ v4: ip.v4 & (~0 << (32 - v4Bits)) })}/${v4Bits}`;
  }
  return `${ip.v6.slice(0, v6Bits / 16).map((group) => group.toString(16)).join(":")}::/${v6Bits}`;
}

/** TRUST_PROXY: a comma list of addresses and CIDR blocks; the bad entry when there is one. */
export function parseTrustedProxies(text: string): { proxies: TrustedProxies } | { bad: string } {
  const proxies: TrustedProxy[] = [];
  for (const entry of text.split(",").map((item) => item.trim()).filter(Boolean)) {
    const [address, bitsText] = entry.split("/", 2);
    const ip = parseIp(address!);
    const width = ip && "v4" in ip ? 32 : 128;
    const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
    if (ip === null || !(bits <= width)) return { bad: entry };
    proxies.push({ ip, bits });
  }
  return { proxies };
}

function isTrusted(ip: Ip, trusted: TrustedProxies): boolean {
  return trusted.some((proxy) => inBlock(ip, proxy.ip, proxy.bits));
}

function inBlock(ip: Ip, base: Ip, bits: number): boolean {
  const a = bitsOf(ip);
  const b = bitsOf(base);
  return a.length === b.length && a.slice(0, bits) === b.slice(0, bits);
}

const bitsOf = (ip: Ip) =>
  "v4" in ip ? ip.v4.toString(2).padStart(32, "0") : ip.v6.map((group) => group.toString(2).padStart(16, "0")).join("");

/** An address, with an IPv4 address that a dual-stack socket reports as ::ffff:a.b.c.d taken out. */
function parseIp(text: string): Ip | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return { v4 };
  const v6 = parseIPv6(text.replace(/^\[(.*)\]$/, "$1"));
  if (v6 === null) return null;
  const mapped = mappedIPv4(v6);
  return mapped === null ? { v6 } : { v4: mapped };
}

function formatIp(ip: Ip): string {
  if ("v4" in ip) return [24, 16, 8, 0].map((shift) => (ip.v4 >>> shift) & 255).join(".");
  return ip.v6.map((group) => group.toString(16)).join(":");
}
