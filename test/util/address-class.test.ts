import { describe, expect, it } from "vitest";
import { isPublicAddress } from "../../src/util/address-class.ts";

describe("isPublicAddress()", () => {
  it.each([
    "8.8.8.8",
    "151.101.1.1",
    "1.1.1.1",
    "2606:4700::1111",
    "2a03:2880:f10c:83:face:b00c:0:25de",
    "::ffff:8.8.8.8",
  ])(
    "accepts the public address %s",
    (address) => expect(isPublicAddress(address)).toBe(true),
  );

  it.each([
    ["loopback", "127.0.0.1"],
    ["loopback, other", "127.255.0.9"],
    ["unspecified", "0.0.0.0"],
    ["private 10/8", "10.1.2.3"],
    ["private 172.16/12", "172.31.255.255"],
    ["private 192.168/16", "192.168.0.1"],
    ["carrier-grade NAT", "100.64.0.1"],
    ["link-local (cloud metadata)", "169.254.169.254"],
    ["documentation", "203.0.113.5"],
    ["benchmarking", "198.18.0.1"],
    ["multicast", "224.0.0.1"],
    ["reserved", "240.0.0.1"],
    ["broadcast", "255.255.255.255"],
    ["IPv6 loopback", "::1"],
    ["IPv6 unspecified", "::"],
    ["IPv6 unique local", "fd12:3456::1"],
    ["IPv6 link-local with zone", "fe80::1%eth0"],
    ["IPv6 multicast", "ff02::1"],
    ["IPv6 documentation", "2001:db8::1"],
    ["Teredo", "2001:0:4136:e378::1"],
    ["IPv4-mapped loopback", "::ffff:127.0.0.1"],
    ["IPv4-mapped private, hex form", "::ffff:a00:1"],
    ["NAT64 of a private address", "64:ff9b::10.0.0.1"],
    ["6to4 of a private address", "2002:c0a8:0001::1"],
    ["not an address", "video.twimg.com"],
    ["malformed IPv4", "1.2.3.256"],
    ["malformed IPv6", "1::2::3"],
  ])("refuses %s (%s)", (_why, address) => expect(isPublicAddress(address)).toBe(false));
});
