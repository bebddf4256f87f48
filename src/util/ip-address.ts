// IP addresses in text, parsed into numbers: for the egress policy, the proxy handshakes and the
// client address of a request.

/** An IPv4 address as one 32-bit number; null when it is none. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail included); null when it is none. */
export function parseIPv6(text: string): number[] | null {
  let head = text;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const v4 = parseIPv4(text.slice(lastColon + 1));
  if (v4 !== null) {
    head = text.slice(0, lastColon + 1) + "0:0";
    tail = [v4 >>> 16, v4 & 0xffff];
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 2 ? missing < 1 : missing !== 0)) return null;
  const words = [...left, ...Array<string>(missing).fill("0"), ...right];
  if (!words.every((w) => /^[0-9a-f]{1,4}$/i.test(w))) return null;
  const groups = words.map((w) => parseInt(w, 16));
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d); null for any other. */
export function mappedIPv4(groups: readonly number[]): number | null {
  if (!groups.slice(0, 5).every((group) => group === 0) || groups[5] !== 0xffff) return null;
  return ((groups[6]! << 16) | groups[7]!) >>> 0;
}
