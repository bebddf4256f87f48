// The owner's site in-process, Request in and Response out, with a cookie jar and a moved clock:
// the refusals and edges that a browser walk-through does not reach.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { hashKey } from "../../src/auth/api-key.ts";
import { admitRequest, listApiKeys } from "../../src/store/api-keys.ts";
import { SESSION_TTL_MS } from "../../src/store/sessions.ts";
import { MAX_FORM_BYTES } from "../../src/web/form.ts";
import { hashPassword } from "../../src/auth/password.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { MAX_KEYS_PER_ACCOUNT, SIGN_IN_LIMITS, SIGN_UP_WINDOW_MS } from "../../src/web/routes.ts";
import { buildTestApp, TestClock } from "../helpers/app.ts";
import { ORIGIN, PASSWORD, Visitor } from "../helpers/visitor.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

describe("the owner's site", () => {
  let store: TestStore;
  let clock: TestClock;
  let app: App;
  const appWith = (signup: "open" | "closed") => buildTestApp(store.db, { clock, env: { SIGNUP: signup } }).app;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    clock = new TestClock();
    app = appWith("open");
  });
  afterAll(() => store.close());

  it("serves pages with a strict policy, no caching and only its own assets", async () => {
    const response = await new Visitor(app).send("/sign-in");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain(
      "default-src 'none'; script-src 'self'; style-src 'self'",
    );
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("content-security-policy")).toContain("form-action 'self'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^pre=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax$/),
    ]);
    const css = await new Visitor(app).send("/assets/site.css");
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toContain("prefers-color-scheme");
    expect((await new Visitor(app).send("/assets/copy.js")).headers.get("content-type")).toBe(
      "text/javascript; charset=utf-8",
    );
    expect((await new Visitor(app).send("/")).headers.get("location")).toBe("/profile/api-keys");
  });

  it("signs up into a session whose cookie is HttpOnly, SameSite=Lax, and Secure behind https", async () => {
    const visitor = new Visitor(app);
    const csrf = await visitor.csrfOf("/sign-up");
    const response = await visitor.post("/sign-up", {
      csrf,
      email: "New@Example.com",
      password: PASSWORD,
      repeat: PASSWORD,
    }, {
      "sec-fetch-site": "same-origin",
      "x-forwarded-proto": "https",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/profile/api-keys?notice=welcome");
    expect(response.headers.getSetCookie()).toContainEqual(
      expect.stringMatching(/^sid=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800; Secure$/),
    );
    const page = await (await visitor.send("/profile/api-keys?notice=welcome")).text();
    expect(page).toContain("new@example.com");
    expect(page).toContain("Your account is ready");

    const again = await new Visitor(app).signUp("new@example.com");
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already exists");
    const mismatch = await new Visitor(app).post("/sign-up", {
      csrf: "x",
      email: "y@example.com",
      password: PASSWORD,
      repeat: PASSWORD,
    });
    expect(mismatch.status).toBe(403);
  });

  it("refuses weak and mismatched passwords and bad emails with a message on the form", async () => {
    const visitor = new Visitor(app);
    const csrf = await visitor.csrfOf("/sign-up");
    const cases: [Record<string, string>, string][] = [
      [{ email: "not-an-email", password: PASSWORD, repeat: PASSWORD }, "Enter an email address"],
      [{ email: "w@example.com", password: "short", repeat: "short" }, "at least 10 characters"],
      [{ email: "w@example.com", password: PASSWORD, repeat: `${PASSWORD}!` }, "The two passwords differ"],
    ];
    for (const [fields, message] of cases) {
      const response = await visitor.post("/sign-up", { csrf, ...fields });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    expect(visitor.cookies.has("sid")).toBe(false);
  });

  it("answers a wrong password and an unknown email alike, and limits one client's attempts on an account", async () => {
    await new Visitor(app).signUp("limited@example.com");
    const visitor = new Visitor(app);
    const wrong = await visitor.signIn("limited@example.com", "wrong password!");
    const unknown = await visitor.signIn("nobody@example.com", "wrong password!");
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    const [wrongText, unknownText] = [await wrong.text(), await unknown.text()];
    expect(wrongText).toContain("Wrong email or password.");
    expect(wrongText.replace("limited@example.com", "E")).toBe(unknownText.replace("nobody@example.com", "E"));

    for (let i = 1; i < SIGN_IN_LIMITS.perClientAndAccount; i++) {
      await visitor.signIn("limited@example.com", "wrong password!");
    }
    const limited = await visitor.signIn("limited@example.com");
    expect(limited.status).toBe(429);
    expect(await limited.text()).toContain("Too many sign-in attempts for this email. Wait 15 minutes and try again.");
    expect(visitor.cookies.has("sid")).toBe(false);

    clock.advance(SIGN_IN_LIMITS.windowMs);
    expect((await visitor.signIn("limited@example.com")).status).toBe(303);
    expect(visitor.cookies.has("sid")).toBe(true);
  });

  it("tells the operator once when sign-ins come through a local proxy that TRUST_PROXY does not name", async () => {
    const { app: proxied, logLines } = buildTestApp(store.db, { clock });
    const behindProxy = new Visitor(proxied, "127.0.0.1");
    const signIn = async (address: string) =>
      behindProxy.post("/sign-in", {
        csrf: await behindProxy.csrfOf("/sign-in"),
        email: "proxied@example.com",
        password: PASSWORD,
      }, { "sec-fetch-site": "same-origin", "x-forwarded-for": address });
    expect((await signIn("198.51.100.200")).status).toBe(401);
    await signIn("198.51.100.201");
    const warnings = logLines.map((line) => JSON.parse(line)).filter((entry) =>
      entry.msg.startsWith("sign-ins arrive through a proxy")
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: "warn", proxy: "127.0.0.1" });
  });

  it("a stranger's wrong guesses do not lock the owner out, and the owner's success does not free the stranger", async () => {
    await new Visitor(app).signUp("guarded@example.com");
    const stranger = new Visitor(app, "203.0.113.66");
    for (let i = 0; i < SIGN_IN_LIMITS.perClientAndAccount; i++) {
      expect((await stranger.signIn("guarded@example.com", "a guess of theirs")).status).toBe(401);
    }
    expect((await stranger.signIn("guarded@example.com", "another guess")).status).toBe(429);
    const owner = new Visitor(app, "192.0.2.10");
    expect((await owner.signIn("guarded@example.com")).status).toBe(303);
    const refused = await stranger.signIn("guarded@example.com");
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("Too many sign-in attempts for this email.");
    expect(stranger.cookies.has("sid")).toBe(false);
  });

  it("after 20 addresses x 5 wrong guesses, the owner signs in from a fresh address; the guessers wait", async () => {
    // A cheap hash: the test is about the limits, and 100 full-cost checks would take a minute.
    await createAccount(store.db, "besieged@example.com", await hashPassword(PASSWORD, 1000));
    const guessers = Array.from(
      { length: SIGN_IN_LIMITS.perAccount / SIGN_IN_LIMITS.perClientAndAccount },
      (_, i) => new Visitor(app, `203.0.113.${100 + i}`),
    );
    for (const guesser of guessers) {
      for (let i = 0; i < SIGN_IN_LIMITS.perClientAndAccount; i++) {
        expect((await guesser.signIn("besieged@example.com", `guess ${i}!`)).status).toBe(401);
      }
    }
    // The ceiling is full: those who guessed wait, even with the right password.
    const guesser = await guessers[0]!.signIn("besieged@example.com");
    expect(guesser.status).toBe(429);
    expect(guesser.headers.get("retry-after")).toBe(String(SIGN_IN_LIMITS.windowMs / 1000));
    expect(await guesser.text()).toContain("Too many sign-in attempts for this email");

    const owner = new Visitor(app, "192.0.2.77");
    const signedIn = await owner.signIn("besieged@example.com");
    expect(signedIn.status).toBe(303);
    expect(owner.cookies.has("sid")).toBe(true);

    // A fresh address of the guessers' network gets one guess for the whole network, then none.
    expect((await new Visitor(app, "203.0.113.200").signIn("besieged@example.com", "one more guess")).status).toBe(401);
    expect((await new Visitor(app, "203.0.113.201").signIn("besieged@example.com")).status).toBe(429);
    // The same for an IPv6 /48: its /64s do not each get a guess.
    expect((await new Visitor(app, "2001:db8:66:1::1").signIn("besieged@example.com", "one more guess")).status).toBe(
      401,
    );
    expect((await new Visitor(app, "2001:db8:66:2::1").signIn("besieged@example.com", "another guess")).status).toBe(
      429,
    );
    clock.advance(SIGN_IN_LIMITS.windowMs);
  });

  it("refuses the sixth sign-up from one client in the window with 429 and Retry-After", async () => {
    const signUpFrom = (address: string, email: string) => new Visitor(app, address).signUp(email);
    for (let i = 1; i <= 5; i++) expect((await signUpFrom("192.0.2.150", `many${i}@example.com`)).status).toBe(303);
    clock.advance(60_000);
    const sixth = await signUpFrom("192.0.2.150", "many6@example.com");
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toBe(String(SIGN_UP_WINDOW_MS / 1000 - 60));
    expect(await sixth.text()).toContain(
      "Too many accounts were made from your address today. Wait 24 hours and try again.",
    );
    expect(await store.db.query("SELECT id FROM accounts WHERE email = 'many6@example.com'")).toEqual([]);
    // Another client is not held up; one window later the first may sign up again.
    expect((await signUpFrom("192.0.2.151", "many7@example.com")).status).toBe(303);
    clock.advance(SIGN_UP_WINDOW_MS - 60_000);
    expect((await signUpFrom("192.0.2.150", "many6@example.com")).status).toBe(303);
  });

  it("counts sign-ups of an IPv6 client by its /64, and not forms refused for a typo", async () => {
    const typist = new Visitor(app, "2001:db8:5:1::99");
    const csrf = await typist.csrfOf("/sign-up");
    for (let i = 0; i < 6; i++) {
      expect(
        (await typist.post("/sign-up", { csrf, email: "v6@example.com", password: PASSWORD, repeat: "typo" })).status,
      ).toBe(400);
    }
    for (let i = 1; i <= 5; i++) {
      expect((await new Visitor(app, `2001:db8:5:1::${i}`).signUp(`v6-${i}@example.com`)).status).toBe(303);
    }
    expect((await new Visitor(app, "2001:db8:5:1:ffff::1").signUp("v6-6@example.com")).status).toBe(429);
    expect((await new Visitor(app, "2001:db8:5:2::1").signUp("v6-7@example.com")).status).toBe(303);
  });

  it("a session ends after its lifetime and on sign-out, each with a clear message", async () => {
    const visitor = new Visitor(app);
    await visitor.signUp("ends@example.com");
    clock.advance(SESSION_TTL_MS);
    const ended = await visitor.send("/profile/api-keys");
    expect(ended.status).toBe(303);
    expect(ended.headers.get("location")).toBe("/sign-in?notice=ended");
    expect(ended.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^sid=; .*Max-Age=0/));
    expect(await (await visitor.send("/sign-in?notice=ended")).text()).toContain(
      "Your session has ended. Sign in again.",
    );

    await visitor.signIn("ends@example.com");
    const csrf = await visitor.csrfOf("/profile/api-keys");
    const out = await visitor.post("/sign-out", { csrf });
    expect(out.headers.get("location")).toBe("/sign-in?notice=signed-out");
    expect((await visitor.send("/profile/api-keys")).headers.get("location")).toBe("/sign-in");
  });

  it("shows a new key once, on the FREE tier with the chosen expiry, and caps keys per account", async () => {
    const visitor = new Visitor(app);
    await visitor.signUp("keys@example.com");
    const created = await visitor.createKey(`<img src=x onerror=alert(1)>`, "90");
    expect(created.status).toBe(200);
    const page = await created.text();
    const plain = /id="new-key"[^>]*>(xva_[\w-]{43})</.exec(page)![1]!;
    expect(page).toContain("shown only this once");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(page).not.toContain("<img");

    const list = await (await visitor.send("/profile/api-keys")).text();
    expect(list).not.toContain(plain);
    expect(list).toContain(plain.slice(0, 10));
    const [key] = await listApiKeys(store.db, { now: clock.now(), email: "keys@example.com" });
    expect(key).toMatchObject({
      tier: "FREE",
      condition: "usable",
      expiresAt: new Date(clock.now().getTime() + 90 * 86_400_000),
    });

    const blank = await visitor.createKey("   ");
    expect(blank.status).toBe(400);
    expect(await blank.text()).toContain("Give the key a name.");
    expect((await visitor.createKey("x", "7")).status).toBe(400);
    for (let i = 1; i < MAX_KEYS_PER_ACCOUNT; i++) expect((await visitor.createKey(`k${i}`)).status).toBe(200);
    const tooMany = await visitor.createKey("one more");
    expect(tooMany.status).toBe(409);
    expect(await tooMany.text()).toContain("delete one first");
  });

  it("refuses a post without the session's token, from another site, or too large", async () => {
    const owner = new Visitor(app);
    await owner.signUp("csrf@example.com");
    const other = new Visitor(app);
    await other.signUp("other@example.com");
    const othersToken = await other.csrfOf("/profile/api-keys");
    const fields = { name: "forged", expires: "never" };

    expect((await owner.post("/profile/api-keys", fields)).status).toBe(403);
    const stolen = await owner.post("/profile/api-keys", { ...fields, csrf: othersToken });
    expect(stolen.status).toBe(403);
    expect(await stolen.text()).toContain("This form has expired");
    const csrf = await owner.csrfOf("/profile/api-keys");
    const crossSite = await owner.post("/profile/api-keys", { ...fields, csrf }, { "sec-fetch-site": "same-site" });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain("sent from another site");
    expect((await owner.post("/profile/api-keys", { ...fields, csrf }, { origin: "http://evil.test" })).status).toBe(
      403,
    );
    expect(await listApiKeys(store.db, { now: clock.now(), email: "csrf@example.com" })).toEqual([]);

    expect((await owner.post("/profile/api-keys", { ...fields, csrf, pad: "x".repeat(MAX_FORM_BYTES) })).status).toBe(
      413,
    );
    const json = await owner.send("/profile/api-keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    expect((await owner.post("/profile/api-keys", { ...fields, csrf })).status).toBe(303);
  });

  it("lets an owner change and delete only their own keys", async () => {
    const owner = new Visitor(app);
    await owner.signUp("mine@example.com");
    await owner.createKey("mine");
    const [key] = await listApiKeys(store.db, { now: clock.now(), email: "mine@example.com" });
    const stranger = new Visitor(app);
    await stranger.signUp("stranger@example.com");
    const csrf = await stranger.csrfOf("/profile/api-keys");

    expect((await stranger.post("/profile/api-keys/condition", { csrf, id: key!.id, passive: "true" })).status).toBe(
      404,
    );
    expect((await stranger.send(`/profile/api-keys/delete?id=${key!.id}`)).status).toBe(404);
    expect((await stranger.post("/profile/api-keys/delete", { csrf, id: key!.id })).status).toBe(404);
    expect((await listApiKeys(store.db, { now: clock.now(), id: key!.id }))[0]!.condition).toBe("usable");

    const mine = await owner.csrfOf("/profile/api-keys");
    const passive = await owner.post("/profile/api-keys/condition", { csrf: mine, id: key!.id, passive: "true" });
    expect(passive.headers.get("location")).toBe("/profile/api-keys?notice=passive");
    expect((await listApiKeys(store.db, { now: clock.now(), id: key!.id }))[0]!.condition).toBe("passive");
    const confirm = await (await owner.send(`/profile/api-keys/delete?id=${key!.id}`)).text();
    expect(confirm).toContain("Delete the key “mine”?");
    expect((await owner.post("/profile/api-keys/delete", { csrf: mine, id: key!.id })).headers.get("location")).toBe(
      "/profile/api-keys?notice=deleted",
    );
    expect(await listApiKeys(store.db, { now: clock.now(), id: key!.id })).toEqual([]);
  });

  it("keeps a deleted key's place among the account's keys until its requests leave the 24 h window", async () => {
    const owner = new Visitor(app);
    await owner.signUp("churn@example.com");
    const plains: string[] = [];
    for (let i = 0; i < MAX_KEYS_PER_ACCOUNT; i++) {
      plains.push(/id="new-key"[^>]*>(xva_[\w-]{43})</.exec(await (await owner.createKey(`k${i}`)).text())![1]!);
    }
    const listed = await listApiKeys(store.db, { now: clock.now(), email: "churn@example.com" });
    const keys = plains.map((plain) => listed.find((key) => plain.startsWith(key.displayPrefix))!);
    // The first key spends requests; the second is never used.
    expect((await admitRequest(store.db, await hashKey(plains[0]!), clock.now())).outcome).toBe("admitted");
    const csrf = await owner.csrfOf("/profile/api-keys");
    for (const key of keys.slice(0, 2)) await owner.post("/profile/api-keys/delete", { csrf, id: key.id });
    // The deleted key works no more and leaves the list.
    expect((await admitRequest(store.db, await hashKey(plains[0]!), clock.now())).outcome).toBe("unknown");
    expect(await listApiKeys(store.db, { now: clock.now(), email: "churn@example.com" })).toHaveLength(
      MAX_KEYS_PER_ACCOUNT - 2,
    );
    // The page says why fewer keys are listed than the account holds.
    const page = await (await owner.send("/profile/api-keys")).text();
    expect(page).toContain(
      `Your keys (${
        MAX_KEYS_PER_ACCOUNT - 2
      } of at most ${MAX_KEYS_PER_ACCOUNT}; 1 deleted key takes a place until its requests of the last 24 hours have left that window)`,
    );
    // The unused key's place is free at once; the used one's is not, so no fresh daily count.
    expect((await owner.createKey("instead of the unused")).status).toBe(200);
    const refused = await owner.createKey("instead of the used");
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("A deleted key keeps its place");
    clock.advance(24 * 60 * 60_000 + 60_000);
    expect((await owner.createKey("a day later")).status).toBe(200);
  });

  it("with SIGNUP=closed offers no sign-up and creates no account", async () => {
    const closed = appWith("closed");
    const visitor = new Visitor(closed);
    expect(await (await visitor.send("/sign-in")).text()).not.toContain("/sign-up");
    const page = await visitor.send("/sign-up");
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("Sign-up is closed");
    const csrf = await visitor.csrfOf("/sign-in");
    const response = await visitor.post("/sign-up", {
      csrf,
      email: "closed@example.com",
      password: PASSWORD,
      repeat: PASSWORD,
    });
    expect(response.status).toBe(403);
    expect(visitor.cookies.has("sid")).toBe(false);
    expect(await store.db.query("SELECT id FROM accounts WHERE email = 'closed@example.com'")).toEqual([]);
  });

  it("shows a new key once: reloading its page makes no second key and shows the key no more", async () => {
    const visitor = new Visitor(app);
    await visitor.signUp("reload@example.com");
    const posted = await visitor.post("/profile/api-keys", {
      csrf: await visitor.csrfOf("/profile/api-keys"),
      name: "once",
      expires: "never",
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe("/profile/api-keys/new");
    expect(posted.headers.get("set-cookie")).toMatch(
      /^newkey=[^;]+; Path=\/profile\/api-keys\/new; HttpOnly; SameSite=Lax; Max-Age=300$/,
    );
    const shown = await visitor.send("/profile/api-keys/new");
    const plain = /id="new-key"[^>]*>(xva_[\w-]{43})</.exec(await shown.text())![1]!;
    expect((await admitRequest(store.db, await hashKey(plain), clock.now())).outcome).toBe("admitted");

    const reloaded = await visitor.send("/profile/api-keys/new");
    expect(reloaded.status).toBe(303);
    expect(reloaded.headers.get("location")).toBe("/profile/api-keys?notice=shown-once");
    const list = await (await visitor.send(reloaded.headers.get("location")!)).text();
    expect(list).toContain("A new key is shown only once");
    expect(list).not.toContain(plain);
    expect(await listApiKeys(store.db, { now: clock.now(), email: "reload@example.com" })).toHaveLength(1);
  });

  it("makes a key shaped as a UUID when the owner asks for cobalt's shape, and it is admitted as any key", async () => {
    const visitor = new Visitor(app);
    await visitor.signUp("uuid@example.com");
    const form = await (await visitor.send("/profile/api-keys")).text();
    expect(form).toContain('<option value="uuid">');
    const posted = await visitor.post("/profile/api-keys", {
      csrf: await visitor.csrfOf("/profile/api-keys"),
      name: "cobalt",
      expires: "never",
      shape: "uuid",
    });
    expect(posted.status).toBe(303);
    const shown = await (await visitor.send("/profile/api-keys/new")).text();
    const plain = /id="new-key"[^>]*>([0-9a-f-]{36})</.exec(shown)![1]!;
    expect(plain).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await admitRequest(store.db, await hashKey(plain), clock.now())).outcome).toBe("admitted");
    const odd = await visitor.post("/profile/api-keys", {
      csrf: await visitor.csrfOf("/profile/api-keys"),
      name: "odd",
      expires: "never",
      shape: "guid",
    });
    expect(odd.status).toBe(400);
  });

  it("links the keys page to the API reference and the paste page, with an example call to this server", async () => {
    const visitor = new Visitor(app);
    await visitor.signUp("example@example.com");
    const page = await (await visitor.send("/profile/api-keys")).text();
    expect(page).toContain('href="/docs"');
    expect(page).toContain('href="/paste"');
    expect(page).toContain(`curl -H "Authorization: Bearer $MEDIA_API_KEY" "${ORIGIN}/api/v1/post?url=`);
    const behindProxy = new Visitor(
      buildTestApp(store.db, { clock, env: { PUBLIC_URL: "https://media.example.com" } }).app,
    );
    await behindProxy.signUp("proxied@example.com");
    expect(await (await behindProxy.send("/profile/api-keys")).text()).toContain(
      '"https://media.example.com/api/v1/post?url=',
    );
  });

  it("changes the password with the current one, and ends the account's other sessions", async () => {
    const owner = new Visitor(app);
    await owner.signUp("change@example.com");
    const elsewhere = new Visitor(app);
    await elsewhere.signIn("change@example.com");
    const csrf = await owner.csrfOf("/profile/account");
    const newPassword = "another long password";
    const wrong = await owner.post("/profile/account/password", {
      csrf,
      current: "not it at all",
      password: newPassword,
      repeat: newPassword,
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("The current password is wrong.");
    expect(
      (await owner.post("/profile/account/password", {
        csrf,
        current: PASSWORD,
        password: newPassword,
        repeat: "different",
      })).status,
    ).toBe(400);
    expect(
      (await owner.post("/profile/account/password", { csrf, current: PASSWORD, password: "short", repeat: "short" }))
        .status,
    ).toBe(400);

    const changed = await owner.post("/profile/account/password", {
      csrf,
      current: PASSWORD,
      password: newPassword,
      repeat: newPassword,
    });
    expect(changed.headers.get("location")).toBe("/profile/api-keys?notice=password-changed");
    expect((await owner.send("/profile/api-keys")).status).toBe(200);
    expect((await elsewhere.send("/profile/api-keys")).headers.get("location")).toBe("/sign-in?notice=ended");
    expect((await new Visitor(app).signIn("change@example.com")).status).toBe(401);
    expect((await new Visitor(app).signIn("change@example.com", newPassword)).status).toBe(303);
  });

  it("deletes the account with its keys when the password confirms it", async () => {
    const owner = new Visitor(app);
    await owner.signUp("leaving@example.com");
    const plain = /id="new-key"[^>]*>(xva_[\w-]{43})</.exec(await (await owner.createKey("going")).text())![1]!;
    const csrf = await owner.csrfOf("/profile/account");
    expect((await owner.post("/profile/account/delete", { csrf, current: "not the password" })).status).toBe(403);
    expect(await listApiKeys(store.db, { now: clock.now(), email: "leaving@example.com" })).toHaveLength(1);

    const deleted = await owner.post("/profile/account/delete", { csrf, current: PASSWORD });
    expect(deleted.headers.get("location")).toBe("/sign-in?notice=account-deleted");
    expect(await (await owner.send("/sign-in?notice=account-deleted")).text()).toContain(
      "Your account and its keys are deleted.",
    );
    expect(await store.db.query("SELECT id FROM accounts WHERE email = 'leaving@example.com'")).toEqual([]);
    expect((await admitRequest(store.db, await hashKey(plain), clock.now())).outcome).toBe("unknown");
    expect((await owner.send("/profile/api-keys")).headers.get("location")).toMatch(/^\/sign-in/);
  });
});
