// The sign-up limit on both stores, and across two connection pools on one PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeSignUp } from "../../src/store/sign-ups.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";

const limit = { perClient: 3, windowMs: 60 * 60_000 };
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));

describe.each(storeKinds)("sign-ups on %s", (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store.close());

  it("allows a client the limit in the window, then says when the oldest leaves it", async () => {
    for (const minute of [0, 10, 20]) {
      expect(await takeSignUp(store.db, "192.0.2.1", at(minute), limit)).toEqual({ allowed: true });
    }
    expect(await takeSignUp(store.db, "192.0.2.1", at(30), limit)).toEqual({ allowed: false, retryAt: at(60) });
    expect(await takeSignUp(store.db, "192.0.2.2", at(30), limit)).toEqual({ allowed: true });
    // Refused sign-ups are not counted: the first one's leaving frees one place.
    expect(await takeSignUp(store.db, "192.0.2.1", at(60), limit)).toEqual({ allowed: true });
    expect(await takeSignUp(store.db, "192.0.2.1", at(61), limit)).toEqual({ allowed: false, retryAt: at(70) });
  });
});

describe("sign-ups from two instances on one PostgreSQL", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("postgres");
  });
  afterAll(() => store.close());

  it("concurrent sign-ups never pass the limit", async () => {
    const pools = [store.connectAgain(), store.connectAgain()];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => takeSignUp(pools[i % 2]!, "192.0.2.99", at(0), limit)),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(limit.perClient);
  });
});
