// Who sent a request: the socket's peer, or behind a trusted proxy the last hop it did not add.
import { describe, expect, it } from "vitest";
import {
  clientAddress,
  clientGroup,
  clientNetwork,
  parseTrustedProxies,
  type Sender,
  type TrustedProxies,
  unnamedLocalProxy,
} from "../../src/http/client-address.ts";

const trust = (text: string): TrustedProxies => {
  const parsed = parseTrustedProxies(text);
  if (!("proxies" in parsed)) throw new Error(`bad entry ${parsed.bad}`);
  return parsed.proxies;
};

function requestFrom(peer: string | undefined, forwardedFor?: string): Sender {
  const request = new Request("http://api.test/sign-in", {
    headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
  });
  return { request, peer };
}

describe("clientAddress()", () => {
  it("is the peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress(requestFrom("203.0.113.7", "1.2.3.4"), [])).toBe("203.0.113.7");
    expect(clientAddress(requestFrom("::ffff:203.0.113.7"), [])).toBe("203.0.113.7");
    expect(clientAddress(requestFrom("2001:DB8:0:0::1"), [])).toBe("2001:db8:0:0:0:0:0:1");
  });

  it("is the peer when the peer is not a trusted proxy", () => {
    expect(clientAddress(requestFrom("203.0.113.7", "1.2.3.4"), trust("127.0.0.1"))).toBe("203.0.113.7");
  });

  it("behind a trusted proxy, is the right-most hop that is no trusted proxy", () => {
    const proxies = trust("127.0.0.1, 10.0.0.0/8");
    // The client wrote 6.6.6.6 itself; the proxy appended the address it saw.
    expect(clientAddress(requestFrom("127.0.0.1", "6.6.6.6, 198.51.100.4"), proxies)).toBe("198.51.100.4");
    expect(clientAddress(requestFrom("::ffff:127.0.0.1", "198.51.100.4, 10.1.2.3"), proxies)).toBe("198.51.100.4");
    expect(clientAddress(requestFrom("127.0.0.1", "  198.51.100.4 ,10.9.9.9,10.1.2.3"), proxies)).toBe("198.51.100.4");
  });

  it("stops at a hop that is no address, and falls back to the proxy when there is no header", () => {
    const proxies = trust("127.0.0.1");
    expect(clientAddress(requestFrom("127.0.0.1", "198.51.100.4, unknown"), proxies)).toBe("127.0.0.1");
    expect(clientAddress(requestFrom("127.0.0.1"), proxies)).toBe("127.0.0.1");
    expect(clientAddress(requestFrom("127.0.0.1", "[2001:db8::5]"), proxies)).toBe("2001:db8:0:0:0:0:0:5");
  });

  it("is unknown when the adapter recorded no peer", () => {
    expect(clientAddress(requestFrom(undefined, "198.51.100.4"), trust("127.0.0.1"))).toBe("unknown");
  });
});

describe("unnamedLocalProxy()", () => {
  it("names a loopback or private peer that forwards for others when TRUST_PROXY does not", () => {
    expect(unnamedLocalProxy(requestFrom("::ffff:127.0.0.1", "198.51.100.4"), [])).toBe("127.0.0.1");
    expect(unnamedLocalProxy(requestFrom("10.1.2.3", "198.51.100.4"), trust("127.0.0.1"))).toBe("10.1.2.3");
  });

  it("is null for a named proxy, a request without the header, and a public peer that sends it", () => {
    expect(unnamedLocalProxy(requestFrom("127.0.0.1", "198.51.100.4"), trust("127.0.0.1"))).toBeNull();
    expect(unnamedLocalProxy(requestFrom("127.0.0.1"), [])).toBeNull();
    expect(unnamedLocalProxy(requestFrom("8.8.8.8", "198.51.100.4"), [])).toBeNull();
  });
});

describe("clientGroup()", () => {
  it("counts an IPv4 address alone and an IPv6 address by its /64", () => {
    expect(clientGroup("198.51.100.4")).toBe("198.51.100.4");
    expect(clientGroup("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:db8:1:2:bbbb::9")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("unknown")).toBe("unknown");
  });
});

describe("clientNetwork()", () => {
  it("puts an IPv4 address in its /24 and an IPv6 address in its /48", () => {
    expect(clientNetwork("198.51.100.4")).toBe("198.51.100.0/24");
    expect(clientNetwork("255.255.255.255")).toBe("255.255.255.0/24");
    expect(clientNetwork("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1::/48");
    expect(clientNetwork("2001:db8:1:ffff::9")).toBe("2001:db8:1::/48");
    expect(clientNetwork("unknown")).toBe("unknown");
  });
});

describe("parseTrustedProxies()", () => {
  it("takes addresses and CIDR blocks, and names the first entry that is neither", () => {
    expect(trust("127.0.0.1,::1,10.0.0.0/8,fd00::/8")).toHaveLength(4);
    expect(parseTrustedProxies("")).toEqual({ proxies: [] });
    for (const bad of ["localhost", "10.0.0.0/33", "::1/129", "10.0.0.0/x", "1.2.3"]) {
      expect(parseTrustedProxies(`127.0.0.1, ${bad}`)).toEqual({ bad });
    }
  });
});
