// Whether a resolved IP address is on the public internet. The relay refuses to connect anywhere
// else, so a CDN name pointed at a private network (or a redirect to one) cannot reach inside.
import { mappedIPv4, parseIPv4, parseIPv6 } from "./ip-address.ts";

// IPv4 ranges that are not globally routable (IANA special-purpose registry).
const PRIVATE_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** True only for a well-formed, globally routable unicast IPv4 or IPv6 address. */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return isPublicV4(v4);
  const v6 = parseIPv6(address.replace(/%.*$/, ""));
  return v6 !== null && isPublicV6(v6);
}

function isPublicV4(ip: number): boolean {
  return PRIVATE_V4.every(([base, bits]) => !inPrefix(ip, parseIPv4(base)!, bits));
}

function inPrefix(ip: number, base: number, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((base & mask) >>> 0);
}

function isPublicV6(g: number[]): boolean {
  const embeddedV4 = ((g[6]! << 16) | g[7]!) >>> 0;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address inside.
  const mapped = mappedIPv4(g);
  if (mapped !== null) return isPublicV4(mapped);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return isPublicV4(embeddedV4);
  // 6to4 carries an IPv4 address in groups 1-2.
  if (g[0] === 0x2002) return isPublicV4(((g[1]! << 16) | g[2]!) >>> 0);
  // Global unicast is 2000::/3; within it 2001::/23 (Teredo, benchmarking, ...) and 2001:db8::/32
  // (documentation) are special-purpose. Everything outside (::1, fc00::/7, fe80::/10, ff00::/8) is not public.
  if ((g[0]! & 0xe000) !== 0x2000) return false;
  if (g[0] === 0x2001 && g[1]! < 0x200) return false;
  return !(g[0] === 0x2001 && g[1] === 0xdb8);
}
