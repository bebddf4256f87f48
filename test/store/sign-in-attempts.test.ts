// The sign-in limit on both stores, and across two connection pools on one PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearSignInAttempts, takeSignInAttempt } from "../../src/store/sign-in-attempts.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";

const limit = { max: 3, windowMs: 15 * 60_000 };
const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));

describe.each(storeKinds)("sign-in attempts on %s", (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store.close());

  it("takeSignInAttempt() allows the limit per email in the window, then says when to come back", async () => {
    expect(await takeSignInAttempt(store.db, "a@example.com", at(0), limit)).toEqual({ allowed: true });
    expect(await takeSignInAttempt(store.db, "A@Example.com ", at(1), limit)).toEqual({ allowed: true });
    expect(await takeSignInAttempt(store.db, "a@example.com", at(2), limit)).toEqual({ allowed: true });
    expect(await takeSignInAttempt(store.db, "a@example.com", at(3), limit)).toEqual({ allowed: false, retryAt: at(15) });
    expect(await takeSignInAttempt(store.db, "other@example.com", at(3), limit)).toEqual({ allowed: true });
    // Refused attempts are not counted, so the first attempt's leaving frees one.
    expect(await takeSignInAttempt(store.db, "a@example.com", at(15), limit)).toEqual({ allowed: true });
    expect(await takeSignInAttempt(store.db, "a@example.com", at(15), limit)).toEqual({ allowed: false, retryAt: at(16) });
  });

  it("clearSignInAttempts() starts the count again", async () => {
    for (let i = 0; i < limit.max; i++) await takeSignInAttempt(store.db, "b@example.com", at(0), limit);
    await clearSignInAttempts(store.db, "B@example.com");
    expect(await takeSignInAttempt(store.db, "b@example.com", at(1), limit)).toEqual({ allowed: true });
  });
});

describe("sign-in attempts from two instances on one PostgreSQL", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("postgres");
  });
  afterAll(() => store.close());

  it("concurrent attempts never pass the limit", async () => {
    const pools = [store.connectAgain(), store.connectAgain()];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => takeSignInAttempt(pools[i % 2]!, "c@example.com", at(0), limit)),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(limit.max);
  });
});
