// The connection limits' parts on their own: the open-file limit as /proc/self/limits says it, the
// default cap taken from it, and the counting per client (IPv4 address, IPv6 /64, trusted proxies).
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { connectionCounter, connectionLimits, openFileLimit } from "../../src/runtime/connection-caps.ts";

const limitsText = (soft: string) =>
  `Limit                     Soft Limit           Hard Limit           Units     \nMax processes             63448                63448                processes \nMax open files            ${soft}                 524288               files     \n`;

describe("openFileLimit", () => {
  it("reads the soft limit, unlimited, and nothing when the file is missing or odd", () => {
    expect(openFileLimit(() => limitsText("1024"))).toBe(1024);
    expect(openFileLimit(() => limitsText("unlimited"))).toBe(Infinity);
    expect(openFileLimit(() => "Max open files  lots")).toBeNull();
    expect(
      openFileLimit(() => {
        throw new Error("ENOENT");
      }),
    ).toBeNull();
  });
});

describe("connectionLimits", () => {
  it("takes half the open-file limit, at most 4096, and 1024 assumed when it is unknown; a setting wins", () => {
    const config = parseConfig({});
    expect(connectionLimits(config, 1024).maxConnections).toBe(512);
    expect(connectionLimits(config, 1_048_576).maxConnections).toBe(4096);
    expect(connectionLimits(config, Infinity).maxConnections).toBe(4096);
    expect(connectionLimits(config, null).maxConnections).toBe(512);
    expect(connectionLimits(config, 1024)).toMatchObject({ headTimeoutMs: 15_000, maxPerClient: 64 });
    expect(connectionLimits(parseConfig({ MAX_CONNECTIONS: "10", MAX_CONNECTIONS_PER_CLIENT: "64" }), 1024)).toMatchObject({ maxConnections: 10, maxPerClient: 10 });
  });
});

describe("connectionCounter", () => {
  const lines: string[] = [];
  const limits = connectionLimits(parseConfig({ MAX_CONNECTIONS: "5", MAX_CONNECTIONS_PER_CLIENT: "2", TRUST_PROXY: "10.0.0.1" }));
  const log = createLogger("warn", (line) => lines.push(line));

  it("caps each IPv4 address and IPv6 /64, frees a place when a connection closes, and exempts a trusted proxy from the per-client cap", () => {
    const counter = connectionCounter(limits, log);
    const a = [counter.admit("192.0.2.1"), counter.admit("::ffff:192.0.2.1")];
    expect(a.every((closed) => closed !== null)).toBe(true);
    expect(counter.admit("192.0.2.1")).toBeNull();
    expect(counter.admit("2001:db8::1")).not.toBeNull();
    expect(counter.admit("2001:db8::ffff:2")).not.toBeNull();
    expect(counter.admit("2001:db8::3")).toBeNull();
    expect(counter.open).toBe(4);
    a[0]!();
    a[0]!();
    expect(counter.open).toBe(3);
    expect(counter.admit("192.0.2.1")).not.toBeNull();
    // The proxy is held only to the total, which is now reached by its second connection.
    expect(counter.admit("10.0.0.1")).not.toBeNull();
    expect(counter.open).toBe(5);
    expect(counter.admit("10.0.0.1")).toBeNull();
    expect(counter.admit(undefined)).toBeNull();
  });

  it("warns of refusals at most once a minute, saying how many there were", () => {
    lines.length = 0;
    let now = 0;
    const counter = connectionCounter(limits, log, () => now);
    counter.admit("192.0.2.9");
    counter.admit("192.0.2.9");
    for (let i = 0; i < 3; i += 1) counter.admit("192.0.2.9");
    now = 61_000;
    counter.admit("192.0.2.9");
    const warnings = lines.map((line) => JSON.parse(line) as { msg: string; refused: number; client?: string });
    expect(warnings.map((line) => [line.msg, line.refused, line.client])).toEqual([
      ["connections refused: a connection cap is reached", 1, "192.0.2.9"],
      ["connections refused: a connection cap is reached", 3, "192.0.2.9"],
    ]);
  });
});
