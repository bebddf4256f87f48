// The operator's cookie jars by platform (COOKIES_DIR/<platform>/*.txt): an account's cookies
// reach only its platform's hosts, the accounts of a jar are taken in turn, and one its platform
// refuses is set aside, named in the log and the metrics. The real gallery-dl against the local
// Instagram and TikTok of test/fakes/photo-platforms.ts, whose request log is the canary.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

let store: TestStore;
let platforms: PhotoPlatforms;
let key: string;
let dir: string;
beforeAll(async () => {
  [store, platforms] = await Promise.all([openTestStore("pglite"), startPhotoPlatforms()]);
  key = (await makeKey(store.db, "PRO")).plain;
  dir = await mkdtemp(path.join(tmpdir(), "cookie-jars-"));
});
afterAll(async () => {
  await Promise.all([store?.close(), platforms?.close(), rm(dir, { recursive: true, force: true })]);
});

const line = (domain: string, name: string, value: string) => `${domain}\tTRUE\t/\tTRUE\t1900000000\t${name}\t${value}`;

/** Writes the jars (platform folder -> account -> lines) into a fresh COOKIES_DIR. */
async function jarsDir(jars: Record<string, Record<string, string[]>>): Promise<string> {
  const root = await mkdtemp(path.join(dir, "jars-"));
  for (const [platform, accounts] of Object.entries(jars)) {
    await mkdir(path.join(root, platform));
    for (const [account, lines] of Object.entries(accounts)) {
      await writeFile(
        path.join(root, platform, `${account}.txt`),
        ["# Netscape HTTP Cookie File", ...lines, ""].join("\n"),
      );
    }
  }
  return root;
}

function appWith(env: Record<string, string>) {
  return buildTestApp(store.db, {
    env: {
      ORIGIN_OVERRIDES: platforms.originOverrides,
      GALLERY_DL_CA_FILE: platforms.caFile,
      PAGE_CACHE_TTL_S: "0",
      ...env,
    },
  });
}

/** The Cookie headers the platforms' hosts got while `call` ran, by host. */
async function cookiesSeen(call: () => Promise<unknown>): Promise<Map<string, string[]>> {
  const since = platforms.requestLog.length;
  await call();
  const seen = new Map<string, string[]>();
  for (const request of platforms.requestLog.slice(since)) {
    seen.set(request.host, [...(seen.get(request.host) ?? []), request.cookie ?? ""]);
  }
  return seen;
}

// Each test runs gallery-dl two to five times: on a busy machine that is more than the default 30 s.
describe("a jar per platform", { timeout: scaled(90_000) }, () => {
  test("each platform's account reaches its own hosts only, whatever else its file holds", async () => {
    const root = await jarsDir({
      instagram: {
        shop: [line(".instagram.com", "sessionid", "insta-own"), line(".tiktok.com", "sid_tt", "insta-leak")],
      },
      tiktok: {
        brand: [line(".tiktok.com", "sid_tt", "tiktok-own"), line(".instagram.com", "sessionid", "tiktok-leak")],
      },
    });
    const app = appWith({ COOKIES_DIR: root });
    const post = (link: string) => app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);

    const instagram = await cookiesSeen(async () =>
      expect((await post(photoPosts.instagramThreePhotos)).status).toBe(200)
    );
    const tiktok = await cookiesSeen(async () => expect((await post(photoPosts.tiktokSlideshow)).status).toBe(200));

    expect(instagram.get("www.instagram.com")?.some((cookie) => cookie.includes("sessionid=insta-own"))).toBe(true);
    expect(tiktok.get("www.tiktok.com")?.some((cookie) => cookie.includes("sid_tt=tiktok-own"))).toBe(true);
    const everything = [...instagram.values(), ...tiktok.values()].flat().join("\n");
    expect(everything).not.toContain("insta-leak");
    expect(everything).not.toContain("tiktok-leak");
    // The files are read, never written.
    expect(await readFile(path.join(root, "instagram", "shop.txt"), "utf8")).toContain("insta-leak");
    expect(app.logLines.join("\n")).not.toContain("insta-own");
  });

  test("two accounts are taken in turn; one the platform refuses is set aside, logged and counted", async () => {
    const root = await jarsDir({
      instagram: {
        alice: [line(".instagram.com", "sessionid", "acct-alice")],
        bob: [line(".instagram.com", "sessionid", "acct-bob")],
      },
    });
    const app = appWith({ COOKIES_DIR: root });
    const post = (link: string) => app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);
    const accountOf = async (link: string, status: number) => {
      const seen = await cookiesSeen(async () => expect((await post(link)).status).toBe(status));
      const cookies = new Set(seen.get("www.instagram.com")?.map((cookie) => /sessionid=([\w-]+)/.exec(cookie)?.[1]));
      expect(cookies.size).toBe(1);
      return [...cookies][0];
    };

    expect(await accountOf(photoPosts.instagramThreePhotos, 200)).toBe("acct-alice");
    expect(await accountOf(photoPosts.instagramThreePhotos, 200)).toBe("acct-bob");
    // Alice's turn again: the platform answers with its login page, and Alice is set aside.
    expect(await accountOf(photoPosts.instagramLoginWall, 502)).toBe("acct-alice");
    expect(await accountOf(photoPosts.instagramThreePhotos, 200)).toBe("acct-bob");
    expect(await accountOf(photoPosts.instagramThreePhotos, 200)).toBe("acct-bob");

    expect(app.logLines.join("\n")).toMatch(/INSTAGRAM refused the account alice of its cookie jar \(a sign-in\)/);
    expect(await (await app.get("/metrics")).text()).toContain(
      'media_api_set_aside_total{platform="INSTAGRAM",kind="account",name="alice"} 1',
    );
  });

  test("a platform without a jar of its own keeps COOKIES_FILE, the default jar", async () => {
    const root = await jarsDir({ tiktok: { brand: [line(".tiktok.com", "sid_tt", "tiktok-own")] } });
    const file = path.join(dir, "default.txt");
    await writeFile(
      file,
      ["# Netscape HTTP Cookie File", line(".instagram.com", "sessionid", "default-insta"), ""].join("\n"),
    );
    const app = appWith({ COOKIES_DIR: root, COOKIES_FILE: file });
    const seen = await cookiesSeen(async () =>
      expect((await app.get(`/api/v1/post?url=${encodeURIComponent(photoPosts.instagramThreePhotos)}`, key)).status)
        .toBe(200)
    );
    expect(seen.get("www.instagram.com")?.some((cookie) => cookie.includes("sessionid=default-insta"))).toBe(true);
  });
});
