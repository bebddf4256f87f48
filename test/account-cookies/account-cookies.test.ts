// Customers' own sessions (ACCOUNT_COOKIES=on): an owner uploads a platform's cookie file on the
// site; its keys' calls and jobs carry it to that platform's hosts, another account's never do, and
// none of them carries the operator's jar for that platform; the file is never shown back (the
// page lists platform and time, the store holds it sealed) and is gone with its account. The real
// gallery-dl against the local Instagram of test/fakes/photo-platforms.ts, whose request log is the
// canary: each account's file holds a cookie of its own name.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cookieKeyOf, seal, unseal } from "../../src/account-cookies/seal.ts";
import { deleteAccount } from "../../src/store/accounts.ts";
import { createApiKey } from "../../src/store/api-keys.ts";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { buildTestApp } from "../helpers/app.ts";
import { completed, type JobService, startJobService } from "../helpers/job-service.ts";
import { scaled } from "../helpers/slowness.ts";
import { Visitor } from "../helpers/visitor.ts";

let service: JobService;
let platforms: PhotoPlatforms;
let jars: string;

const line = (domain: string, name: string, value: string) => `${domain}\tTRUE\t/\tTRUE\t1900000000\t${name}\t${value}`;
const netscape = (...lines: string[]) => ["# Netscape HTTP Cookie File", ...lines, ""].join("\n");

beforeAll(async () => {
  platforms = await startPhotoPlatforms();
  // The operator's jar for Instagram: what an account without a file of its own sends.
  jars = await mkdtemp(path.join(tmpdir(), "account-cookies-"));
  await mkdir(path.join(jars, "instagram"));
  await writeFile(path.join(jars, "instagram", "ops.txt"), netscape(line(".instagram.com", "sessionid", "operator")));
  service = await startJobService({
    ACCOUNT_COOKIES: "on",
    COOKIES_DIR: jars,
    ORIGIN_OVERRIDES: platforms.originOverrides,
    GALLERY_DL_CA_FILE: platforms.caFile,
  });
}, scaled(120_000));
afterAll(async () => {
  await service?.close();
  await Promise.all([platforms?.close(), rm(jars, { recursive: true, force: true })]);
});

interface Owner {
  visitor: Visitor;
  key: string;
  accountId: number;
}

/** An owner signed up on the site, with a key of its account. */
async function owner(email: string): Promise<Owner> {
  const visitor = new Visitor(service.app.app);
  expect((await visitor.signUp(email)).status).toBe(303);
  const [row] = await service.store.db.query<{ id: number }>("SELECT id FROM accounts WHERE email = $1", [email]);
  const accountId = Number(row!.id);
  const { plain } = await createApiKey(service.store.db, {
    accountId,
    name: "calls",
    tier: "PRO",
    expiresInDays: null,
    now: new Date(),
  });
  return { visitor, key: plain, accountId };
}

async function upload(who: Owner, platform: string, text: string): Promise<Response> {
  const csrf = await who.visitor.csrfOf("/profile/cookies");
  return who.visitor.post("/profile/cookies", { csrf, platform, cookies: text });
}

/** Every Cookie header the platforms' hosts got while `call` ran. */
async function cookiesSeen(call: () => Promise<unknown>): Promise<string[]> {
  const since = platforms.requestLog.length;
  await call();
  return platforms.requestLog.slice(since).map((request) => request.cookie ?? "");
}

const post = (key: string, link: string) => service.app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);

describe("an account's own cookies", { timeout: scaled(120_000) }, () => {
  let alice: Owner;
  let bob: Owner;
  let carol: Owner;

  beforeAll(async () => {
    [alice, bob, carol] = [
      await owner("alice-cookies@example.com"),
      await owner("bob-cookies@example.com"),
      await owner("carol-cookies@example.com"),
    ];
    const kept = await upload(
      alice,
      "INSTAGRAM",
      // A browser's export holds other sites' cookies too: only Instagram's hosts' are kept.
      netscape(line(".instagram.com", "sessionid", "alice-canary"), line(".tiktok.com", "sid_tt", "alice-tiktok")),
    );
    expect(kept.status).toBe(303);
    expect(kept.headers.get("location")).toBe("/profile/cookies?notice=kept");
    expect((await upload(bob, "INSTAGRAM", netscape(line(".instagram.com", "sessionid", "bob-canary")))).status)
      .toBe(303);
  }, scaled(60_000));

  test("go with its own calls alone, and its calls never carry the operator's jar for that platform", async () => {
    const asAlice = await cookiesSeen(async () =>
      expect((await post(alice.key, photoPosts.instagramThreePhotos)).status).toBe(200)
    );
    const asBob = await cookiesSeen(async () =>
      expect((await post(bob.key, photoPosts.instagramThreePhotos)).status).toBe(200)
    );
    // Carol has no file: the operator's jar, as before. Alice's and Bob's answers are kept where only they look.
    const asCarol = await cookiesSeen(async () =>
      expect((await post(carol.key, photoPosts.instagramThreePhotos)).status).toBe(200)
    );
    expect(asAlice.some((cookie) => cookie.includes("sessionid=alice-canary"))).toBe(true);
    expect(asBob.some((cookie) => cookie.includes("sessionid=bob-canary"))).toBe(true);
    expect(asCarol.some((cookie) => cookie.includes("sessionid=operator"))).toBe(true);
    expect(asAlice.join("\n")).not.toMatch(/bob-canary|operator|alice-tiktok/);
    expect(asBob.join("\n")).not.toMatch(/alice-canary|operator/);
    expect(asCarol.join("\n")).not.toMatch(/alice-canary|bob-canary/);
    // A photo relayed from the CDN for Bob carries neither Alice's session nor the operator's.
    const files = await cookiesSeen(async () => {
      const download = await service.app.get(
        `/api/v1/download?url=${encodeURIComponent(photoPosts.instagramThreePhotos)}&index=2`,
        bob.key,
      );
      expect(download.status).toBe(200);
      await download.arrayBuffer();
    });
    expect(files.join("\n")).not.toMatch(/alice-canary|operator/);
  });

  test("go with its jobs' items, and not another account's", async () => {
    const seen = await cookiesSeen(async () => {
      const created = await service.app.post("/api/v1/jobs", alice.key, {
        urls: [photoPosts.instagramPhotoVideoPhoto],
      });
      expect(created.status).toBe(202);
      const job = await service.jobWhen<{ status: string; counts: { done: number } }>(
        alice.key,
        created.headers.get("location")!,
        completed,
        scaled(90_000),
      );
      expect(job.counts.done).toBe(1);
    });
    expect(seen.some((cookie) => cookie.includes("sessionid=alice-canary"))).toBe(true);
    expect(seen.join("\n")).not.toMatch(/bob-canary|operator/);
  });

  test("are never shown back: the page lists platform and time, the store holds them sealed", async () => {
    const page = await (await alice.visitor.send("/profile/cookies")).text();
    expect(page).toContain('<td data-label="Platform">Instagram</td>');
    expect(page).toMatch(/<time datetime="[^"]+">/);
    expect(page).not.toContain("alice-canary");
    expect(await (await bob.visitor.send("/profile/cookies")).text()).not.toContain("alice-canary");
    expect(await (await carol.visitor.send("/profile/cookies")).text()).toContain("You have no cookies here.");
    const record = await (await post(alice.key, photoPosts.instagramThreePhotos)).text();
    expect(record).not.toContain("alice-canary");
    const rows = await service.store.db.query<{ sealed: string }>("SELECT sealed FROM account_cookies");
    expect(rows).toHaveLength(2);
    for (const { sealed } of rows) {
      expect(sealed).not.toContain("canary");
      expect(atob(sealed.replace(/-/g, "+").replace(/_/g, "/"))).not.toContain("canary");
    }
    expect(service.app.logLines.join("\n")).not.toContain("canary");
  });

  test("a file is checked: no Netscape file, or none of the platform's hosts, is refused on the page", async () => {
    const wrong = await upload(carol, "INSTAGRAM", "sessionid=carol");
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("This is not a Netscape cookie file");
    const elsewhere = await upload(carol, "INSTAGRAM", netscape(line(".tiktok.com", "sid_tt", "carol")));
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain("The file holds no cookie of Instagram&#39;s hosts");
    expect((await upload(carol, "NO_SUCH", netscape(line(".instagram.com", "sessionid", "x")))).status).toBe(400);
  });

  test("are deleted from the page, and gone with the account", async () => {
    const csrf = await bob.visitor.csrfOf("/profile/cookies");
    const deleted = await bob.visitor.post("/profile/cookies/delete", { csrf, id: "INSTAGRAM" });
    expect(deleted.status).toBe(303);
    expect((await bob.visitor.post("/profile/cookies/delete", { csrf, id: "INSTAGRAM" })).status).toBe(404);
    // Bob's calls take the operator's jar again (a post the shared parts have not kept yet: they read it).
    const asBob = await cookiesSeen(async () =>
      expect((await post(bob.key, photoPosts.instagramPhotoVideoPhoto)).status).toBe(200)
    );
    expect(asBob.some((cookie) => cookie.includes("sessionid=operator"))).toBe(true);

    await deleteAccount(service.store.db, alice.accountId);
    const left = await service.store.db.query("SELECT 1 FROM account_cookies WHERE account_id = $1", [alice.accountId]);
    expect(left).toHaveLength(0);
  });
});

describe("the seal", () => {
  // On the file's store: a store of their own cost each of these two a PGlite's start, most of their time.
  test("opens only for the account and platform it was made for", async () => {
    const key = await cookieKeyOf(service.store.db);
    const content = new TextEncoder().encode(netscape(line(".instagram.com", "sessionid", "sealed")));
    const sealed = await seal(key, 1, "INSTAGRAM", content);
    expect(new TextDecoder().decode(await unseal(key, 1, "INSTAGRAM", sealed))).toContain("sessionid\tsealed");
    await expect(unseal(key, 2, "INSTAGRAM", sealed)).rejects.toThrow();
    await expect(unseal(key, 1, "TIKTOK", sealed)).rejects.toThrow();
  });

  test("without ACCOUNT_COOKIES there is no page", async () => {
    const visitor = new Visitor(buildTestApp(service.store.db).app);
    expect((await visitor.signUp("no-cookies@example.com")).status).toBe(303);
    expect((await visitor.send("/profile/cookies")).status).toBe(404);
  });
});
