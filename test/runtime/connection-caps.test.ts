// The connection limits' parts on their own: the open-file limit as /proc/self/limits says it, the
// default cap taken from it, and the counting per client (IPv4 address, IPv6 /64, trusted proxies).
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import {
  bodyTooSlow,
  connectionCounter,
  connectionLimits,
  type HeldConnection,
  openFileLimit,
} from "../../src/runtime/connection-caps.ts";

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
    expect(connectionLimits(parseConfig({ MAX_CONNECTIONS: "10", MAX_CONNECTIONS_PER_CLIENT: "64" }), 1024))
      .toMatchObject({ maxConnections: 10, maxPerClient: 10 });
  });
});

describe("connectionCounter", () => {
  const lines: string[] = [];
  const limits = connectionLimits(
    parseConfig({ MAX_CONNECTIONS: "5", MAX_CONNECTIONS_PER_CLIENT: "2", TRUST_PROXY: "10.0.0.1" }),
  );
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

/** A connection the test says the state of: being answered, or still sending `received` body bytes since `startedAt`. */
function held(state: { answering?: boolean; body?: { startedAt: number; received: number } } = {}) {
  const connection = { closed: false, ...state };
  const view: HeldConnection = {
    answering: () => connection.answering ?? false,
    bodyArriving: () => connection.body ?? null,
    close: () => void (connection.closed = true),
  };
  return { connection, view };
}

describe("shedding at the cap", () => {
  const limits = connectionLimits(parseConfig({ MAX_CONNECTIONS: "6", MAX_CONNECTIONS_PER_CLIENT: "4" }));
  const log = createLogger("silent");

  it("closes a connection still sending its request, of the client holding the most, to admit a new client", () => {
    const counter = connectionCounter(limits, log);
    const crowd = [held({ answering: true }), held(), held(), held()];
    const other = [held(), held()];
    crowd.forEach((each) => counter.admit("192.0.2.1", each.view));
    other.forEach((each) => counter.admit("192.0.2.2", each.view));
    expect(counter.open).toBe(6);
    expect(counter.admit("198.51.100.7", held().view)).not.toBeNull();
    // The first of the biggest holder's that is not being answered.
    expect(crowd.map((each) => each.connection.closed)).toEqual([false, true, false, false]);
    expect(other.some((each) => each.connection.closed)).toBe(false);
    expect(counter.open).toBe(6);
  });

  it("does not shed for a client holding nearly as many, nor a connection being answered", () => {
    const counter = connectionCounter(limits, log);
    const a = [held(), held(), held()];
    const b = [held({ answering: true }), held({ answering: true }), held({ answering: true })];
    a.forEach((each) => counter.admit("192.0.2.1", each.view));
    b.forEach((each) => counter.admit("192.0.2.2", each.view));
    // 192.0.2.2 holds 3 and 192.0.2.1 holds 3: shedding one of them would only trade places.
    expect(counter.admit("192.0.2.2", held().view)).toBeNull();
    // A new client may take one of 192.0.2.1's, never one of those 192.0.2.2 is being answered on.
    expect(counter.admit("198.51.100.7", held().view)).not.toBeNull();
    expect(counter.admit("198.51.100.8", held().view)).not.toBeNull();
    expect(counter.admit("198.51.100.9", held().view)).toBeNull();
    expect(a.filter((each) => each.connection.closed)).toHaveLength(2);
    expect(b.some((each) => each.connection.closed)).toBe(false);
  });
});

describe("slow request bodies", () => {
  const limits = connectionLimits(parseConfig({ REQUEST_BODY_GRACE_S: "10", REQUEST_BODY_MIN_RATE: "500" }));

  it("allows any pace during the grace, then asks the rate over the time past it", () => {
    expect(limits).toMatchObject({ bodyGraceMs: 10_000, bodyMinRate: 500 });
    expect(bodyTooSlow({ startedAt: 0, received: 0 }, 10_000, limits)).toBe(false);
    expect(bodyTooSlow({ startedAt: 0, received: 0 }, 10_100, limits)).toBe(true);
    expect(bodyTooSlow({ startedAt: 0, received: 2_500 }, 15_000, limits)).toBe(false);
    expect(bodyTooSlow({ startedAt: 0, received: 2_499 }, 15_000, limits)).toBe(true);
  });

  it("closes, at a sweep, the connections whose body is too slow, and only those", () => {
    let now = 0;
    const counter = connectionCounter(limits, createLogger("silent"), () => now);
    const slow = held({ body: { startedAt: 0, received: 10 } });
    const steady = held({ body: { startedAt: 0, received: 20_000 } });
    const answered = held({ answering: true });
    for (const each of [slow, steady, answered]) counter.admit("192.0.2.1", each.view);
    now = 20_000;
    counter.sweep();
    expect([slow, steady, answered].map((each) => each.connection.closed)).toEqual([true, false, false]);
    expect(counter.open).toBe(2);
  });
});
