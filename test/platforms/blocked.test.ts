// A platform is marked down only by the platform: links whose path or query reads like a refusal
// ("/rate-limit", "age-restricted.html", "?q=Too Many Requests") on a page that answers 404 are
// 404s, not 502 upstream_blocked; and one user's private Instagram post (Instagram sends the
// logged-out gallery-dl to its login page) is upstream_blocked for that user, while INSTAGRAM stays
// up, because the check of its reference post, which that refusal asked for, came through. Real
// yt-dlp and gallery-dl against local sources.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type HostilePages, startHostilePages } from "../fakes/hostile-pages.ts";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { platformList } from "../../src/platforms/list.ts";
import { scaled } from "../helpers/slowness.ts";

const token = "metrics-token-0123456789";
let store: TestStore;
let hostile: HostilePages;
let platforms: PhotoPlatforms;
let app: TestApp;
beforeAll(async () => {
  [store, hostile, platforms] = await Promise.all([
    openTestStore("pglite"),
    startHostilePages(),
    startPhotoPlatforms(),
  ]);
  // INSTAGRAM's reference post is a public carousel of the local Instagram; every other check is off.
  const checks = platformList.map(({ id }) => `${id}=${id === "INSTAGRAM" ? photoPosts.instagramThreePhotos : "off"}`)
    .join(",");
  app = buildTestApp(store.db, {
    env: {
      EXTRA_PAGE_HOSTS: hostile.host,
      ORIGIN_OVERRIDES: platforms.originOverrides,
      GALLERY_DL_CA_FILE: platforms.caFile,
      PAGE_CACHE_TTL_S: "0",
      METRICS_TOKEN: token,
      PLATFORM_CHECK_POSTS: checks,
    },
  });
}, scaled(180_000));
afterAll(async () => {
  await Promise.all([store?.close(), hostile?.close(), platforms?.close()]);
});

async function post(link: string): Promise<{ status: number; code: string }> {
  const key = (await makeKey(store.db, "GOLD")).plain;
  const response = await app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);
  return { status: response.status, code: (await response.json()).code };
}

async function platformUp(): Promise<Record<string, number>> {
  const text = await (await app.get("/metrics", undefined, { headers: { authorization: `Bearer ${token}` } })).text();
  return Object.fromEntries(
    [...text.matchAll(/^media_api_platform_up\{platform="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
  );
}

async function instagramRow(): Promise<{ status: string; from: string }> {
  const page = await (await app.get("/platformz", undefined, { headers: { authorization: `Bearer ${token}` } })).json();
  return page.platforms.find((row: { site: string }) => row.site === "INSTAGRAM");
}

describe("links that read like a refusal", () => {
  test.each(["/rate-limit", "/age-restricted.html", "/x?q=Too%20Many%20Requests"])(
    "a 404 page at %s is 404 not_found, not upstream_blocked",
    { timeout: scaled(60_000) },
    async (path) => {
      expect(await post(`${hostile.origin}${path}`)).toEqual({ status: 404, code: "not_found" });
      expect((await platformUp())[hostile.host]).toBeUndefined();
    },
  );
});

describe("one user's private post", () => {
  test(
    "is upstream_blocked for that user; INSTAGRAM stays up, by the check of its reference post the refusal asked for",
    { timeout: scaled(120_000) },
    async () => {
      expect(await post(photoPosts.instagramLoginWall)).toEqual({ status: 502, code: "upstream_blocked" });
      await expect.poll(async () => (await instagramRow()).from, { timeout: scaled(60_000) }).toBe("requests");
      expect(await instagramRow()).toMatchObject({ status: "ok" });
      expect((await platformUp()).INSTAGRAM).toBe(1);
    },
  );
});
