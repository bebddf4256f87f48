// The sign-in limits on both stores, and across two connection pools on one PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientNetwork } from "../../src/http/client-address.ts";
import { clearSignInAttempts, returnSignInAttempt, takeSignInAttempt } from "../../src/store/sign-in-attempts.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";

const limits = { perClientAndAccount: 3, perClient: 5, perAccount: 7, windowMs: 15 * 60_000 };
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));

describe.each(storeKinds)("sign-in attempts on %s", (kind) => {
  let store: TestStore;
  const take = (email: string, client: string, minute: number) =>
    takeSignInAttempt(store.db, { email, client, network: clientNetwork(client) }, at(minute), limits);
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store.close());

  it("allows a client the limit on one account in the window, then says when to come back", async () => {
    expect(await take("a@example.com", "192.0.2.1", 0)).toEqual({ allowed: true });
    expect(await take("A@Example.com ", "192.0.2.1", 1)).toEqual({ allowed: true });
    expect(await take("a@example.com", "192.0.2.1", 2)).toEqual({ allowed: true });
    expect(await take("a@example.com", "192.0.2.1", 3)).toEqual({
      allowed: false,
      limit: "client and account",
      retryAt: at(15),
    });
    // Another client, and the same client on another account, are still let in.
    expect(await take("a@example.com", "192.0.2.2", 3)).toEqual({ allowed: true });
    expect(await take("other@example.com", "192.0.2.1", 3)).toEqual({ allowed: true });
    // Refused attempts are not counted, so the first attempt's leaving frees one.
    expect(await take("a@example.com", "192.0.2.1", 15)).toEqual({ allowed: true });
    expect(await take("a@example.com", "192.0.2.1", 15)).toEqual({
      allowed: false,
      limit: "client and account",
      retryAt: at(16),
    });
  });

  it("stops a client that guesses across accounts, and no other client", async () => {
    for (let i = 0; i < limits.perClient; i++) {
      expect(await take(`spread${i}@example.com`, "198.51.100.9", 20)).toEqual({ allowed: true });
    }
    expect(await take("spread-next@example.com", "198.51.100.9", 21)).toEqual({
      allowed: false,
      limit: "client",
      retryAt: at(35),
    });
    expect(await take("spread-next@example.com", "198.51.100.10", 21)).toEqual({ allowed: true });
  });

  it("has an account-wide ceiling that only many clients together reach", async () => {
    const clients = ["203.0.113.1", "203.0.113.2", "203.0.113.3"];
    let allowed = 0;
    for (const client of clients) {
      for (let i = 0; i < limits.perClientAndAccount; i++) {
        if ((await take("owner@example.com", client, 40)).allowed) allowed++;
      }
    }
    expect(allowed).toBe(limits.perAccount);
    // Those who tried wait for the ceiling, whatever they send.
    expect(await take("owner@example.com", "203.0.113.3", 41)).toEqual({
      allowed: false,
      limit: "account",
      retryAt: at(55),
    });
  });

  it("lets a client that has not tried the account past its ceiling once per network (IPv4 /24, IPv6 /48)", async () => {
    for (let client = 1; client <= 3; client++) {
      for (let i = 0; i < limits.perClientAndAccount; i++) {
        await take("ceiling@example.com", `203.0.113.${client}`, 100);
      }
    }
    // The owner, from a network no guesser used past the ceiling, is let in.
    expect(await take("ceiling@example.com", "192.0.2.200", 101)).toEqual({ allowed: true });
    // A guesser's fresh address gets one attempt for its whole network, then waits.
    expect(await take("ceiling@example.com", "203.0.113.50", 102)).toEqual({ allowed: true });
    expect(await take("ceiling@example.com", "203.0.113.51", 103)).toEqual({
      allowed: false,
      limit: "account",
      retryAt: at(115),
    });
    // IPv6: a fresh /64 of a /48 that had its attempt past the ceiling waits as well.
    expect(await take("ceiling@example.com", "2001:db8:7:1::", 104)).toEqual({ allowed: true });
    expect(await take("ceiling@example.com", "2001:db8:7:2::", 104)).toEqual({
      allowed: false,
      limit: "account",
      retryAt: at(115),
    });
    // And whoever was let past and guessed wrong waits for the ceiling like the others.
    expect(await take("ceiling@example.com", "203.0.113.50", 105)).toEqual({
      allowed: false,
      limit: "account",
      retryAt: at(115),
    });
    // When the ceiling's first attempts leave the window, the network's attempt is still counted, but
    // the account is below its ceiling again.
    expect(await take("ceiling@example.com", "203.0.113.51", 115)).toEqual({ allowed: true });
  });

  it("clearSignInAttempts() forgets one client's attempts on one account, not the others'", async () => {
    for (let i = 0; i < limits.perClientAndAccount; i++) await take("b@example.com", "192.0.2.50", 60);
    for (let i = 0; i < limits.perClientAndAccount; i++) await take("b@example.com", "192.0.2.51", 60);
    await clearSignInAttempts(store.db, { email: "B@example.com", client: "192.0.2.50" });
    expect(await take("b@example.com", "192.0.2.50", 61)).toEqual({ allowed: true });
    expect(await take("b@example.com", "192.0.2.51", 61)).toEqual({
      allowed: false,
      limit: "client and account",
      retryAt: at(75),
    });
  });

  it("returnSignInAttempt() gives back one attempt counted at its time, and no other", async () => {
    for (let i = 0; i < limits.perClientAndAccount; i++) await take("c@example.com", "192.0.2.60", 90 + i);
    expect((await take("c@example.com", "192.0.2.60", 93)).allowed).toBe(false);
    await returnSignInAttempt(store.db, { email: "C@example.com", client: "192.0.2.60" }, at(91));
    expect(await take("c@example.com", "192.0.2.60", 93)).toEqual({ allowed: true });
    expect(await take("c@example.com", "192.0.2.60", 93)).toEqual({
      allowed: false,
      limit: "client and account",
      retryAt: at(90 + 15),
    });
  });
});

describe("sign-in attempts from two instances on one PostgreSQL", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("postgres");
  });
  afterAll(() => store.close());

  it("concurrent attempts never pass a limit", async () => {
    const pools = [store.connectAgain(), store.connectAgain()];
    const attempts = (email: (i: number) => string, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          takeSignInAttempt(
            pools[i % 2]!,
            { email: email(i), client: "192.0.2.77", network: "192.0.2.0/24" },
            at(0),
            limits,
          )),
      );
    const oneAccount = await attempts(() => "c@example.com", 12);
    expect(oneAccount.filter((result) => result.allowed)).toHaveLength(limits.perClientAndAccount);
    const manyAccounts = await attempts((i) => `c${i}@example.com`, 12);
    expect(manyAccounts.filter((result) => result.allowed)).toHaveLength(limits.perClient - limits.perClientAndAccount);
  });
});
