// Issue 43 item 2: the account page's check of the current password is limited as sign-in is, and
// cannot take the password hashing sign-ins need; a sign-in the hashing refused as busy is no attempt.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { SIGN_IN_LIMITS } from "../../src/web/routes.ts";
import { buildTestApp, TestClock } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { PASSWORD, Visitor } from "../helpers/visitor.ts";
import { scaled } from "../helpers/slowness.ts";

describe("password guesses on the owner's site", () => {
  let store: TestStore;
  let clock: TestClock;
  let app: App;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    clock = new TestClock();
    app = buildTestApp(store.db, { clock }).app;
  });
  afterAll(() => store?.close());

  /** A visitor at `address` signed up (and so signed in) as `email`. */
  async function owner(email: string, address?: string): Promise<Visitor> {
    const visitor = new Visitor(app, address);
    expect((await visitor.signUp(email)).status).toBe(303);
    return visitor;
  }

  const wrongCurrent = async (visitor: Visitor, path: "password" | "delete", guess: string) =>
    visitor.post(`/profile/account/${path}`, {
      csrf: await visitor.csrfOf("/profile/account"),
      current: guess,
      password: "a new long password",
      repeat: "a new long password",
    });

  it("answers 429 to one session's wrong current passwords long before the 40th, on both forms", async () => {
    const visitor = await owner("guessed@example.com");
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++) {
      const response = await wrongCurrent(visitor, i % 2 ? "password" : "delete", `guess number ${i}`);
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await response.text()).toContain("Too many sign-in attempts for this email.");
      } else await response.body?.cancel();
    }
    expect(statuses.slice(0, SIGN_IN_LIMITS.perClientAndAccount)).toEqual(Array(5).fill(403));
    expect(statuses.slice(SIGN_IN_LIMITS.perClientAndAccount)).toEqual(Array(35).fill(429));
    // Even the right password waits now; the account is kept.
    const right = await visitor.post("/profile/account/delete", {
      csrf: await visitor.csrfOf("/profile/account"),
      current: PASSWORD,
    });
    expect(right.status).toBe(429);
    expect((await visitor.send("/profile/account")).status).toBe(200);
    clock.advance(SIGN_IN_LIMITS.windowMs);
  }, scaled(120_000));

  it(
    "answers another owner's correct sign-in within 1 s (3 quiet sign-ins on a busy machine) during 48 parallel wrong checks, and lets them in after",
    async () => {
      const attackers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => owner(`attacker${i}@example.com`, `203.0.113.${10 + i}`)),
      );
      await owner("victim@example.com", "192.0.2.10");
      /** The seconds a sign-in from the victim's address takes to be answered, which must let them in. */
      const timedSignIn = async () => {
        const victim = new Visitor(app, "192.0.2.11");
        const csrf = await victim.csrfOf("/sign-in");
        const started = performance.now();
        const signedIn = await victim.post("/sign-in", { csrf, email: "victim@example.com", password: PASSWORD });
        expect(signedIn.status).toBe(303);
        return (performance.now() - started) / 1000;
      };
      // What a sign-in costs on this machine now, with no flood: CI machines are busy. Without its
      // share of the hashing, a sign-in in the flood waits for 16 hashings in line (8 sign-ins'
      // time), or gets 503.
      const quiet = await timedSignIn();

      let answered = 0;
      const flood = Promise.all(
        Array.from({ length: 48 }, async (_, i) => {
          const response = await wrongCurrent(attackers[i % 10]!, "password", `wrong guess ${i}`);
          answered += 1;
          await response.body?.cancel();
          return response.status;
        }),
      );
      // The first wrong check is answered once its hashing is done: the rest are in line or hashing.
      await until("a wrong check answered", () => answered > 0);
      const seconds = await timedSignIn();
      const stillPending = 48 - answered;
      const statuses = await flood;

      console.log(
        `sign-in during the flood: ${seconds.toFixed(3)} s (without: ${
          quiet.toFixed(3)
        } s), ${stillPending} wrong checks still pending`,
      );
      expect(stillPending).toBeGreaterThan(0);
      expect(seconds).toBeLessThan(Math.max(1, 3 * quiet));
      // The wrong checks were wrong (403), refused as busy (503) or limited (429): none went through.
      expect(statuses.every((status) => [403, 429, 503].includes(status))).toBe(true);
      expect(statuses.filter((status) => status === 403).length).toBeGreaterThan(0);

      const again = new Visitor(app, "192.0.2.11");
      expect((await again.signIn("victim@example.com")).status).toBe(303);
      clock.advance(SIGN_IN_LIMITS.windowMs);
    },
    scaled(120_000),
  );

  it("does not count a sign-in the hashing refused as busy", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 48 }, async (_, i) => {
        const response = await new Visitor(app, `198.18.0.${i + 1}`).signIn("nobody@example.com", `guess ${i}`);
        await response.body?.cancel();
        return response.status;
      }),
    );
    const busy = statuses.filter((status) => status === 503).length;
    expect(busy).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 401).length).toBe(48 - busy);
    const [counted] = await store.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM sign_in_attempts WHERE email = 'nobody@example.com'",
    );
    expect(counted!.n).toBe(48 - busy);
  }, scaled(120_000));
});
