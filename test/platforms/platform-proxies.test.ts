// Proxies per platform (OUTBOUND_PROXY_<PLATFORM>): a platform's proxy carries that platform's
// hosts and no other's, a list is taken in turn, and one that cannot be reached is set aside. The
// real gallery-dl against the local Instagram and TikTok of test/fakes/photo-platforms.ts, through
// logging proxies on 127.0.0.1; every connection still passes the egress gate first.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { type LoggingProxy, startHttpProxy } from "../fakes/proxies.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { freePort } from "../helpers/ports.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

let store: TestStore;
let platforms: PhotoPlatforms;
let key: string;
let proxies: LoggingProxy[];
beforeAll(async () => {
  [store, platforms, ...proxies] = await Promise.all([
    openTestStore("pglite"),
    startPhotoPlatforms(),
    startHttpProxy(),
    startHttpProxy(),
    startHttpProxy(),
    startHttpProxy(),
  ]);
  key = (await makeKey(store.db, "PRO")).plain;
});
afterAll(async () => {
  await Promise.all([store?.close(), platforms?.close(), ...(proxies ?? []).map((proxy) => proxy.close())]);
});

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

/** How many requests each proxy was asked for while `call` ran. */
async function carried(call: () => Promise<void>): Promise<number[]> {
  const before = proxies.map((proxy) => proxy.log.length);
  await call();
  return proxies.map((proxy, index) => proxy.log.length - before[index]!);
}

// Each test runs gallery-dl three times: on a busy machine that is more than the default 30 s.
describe("a proxy per platform", { timeout: scaled(90_000) }, () => {
  test("each platform's proxies carry its hosts only, OUTBOUND_PROXY none of them, a list taken in turn", async () => {
    const [instagramA, instagramB, tiktok, fallback] = proxies as [
      LoggingProxy,
      LoggingProxy,
      LoggingProxy,
      LoggingProxy,
    ];
    const app = appWith({
      OUTBOUND_PROXY_INSTAGRAM: `${instagramA.url},${instagramB.url}`,
      OUTBOUND_PROXY_TIKTOK: tiktok.url,
      OUTBOUND_PROXY: fallback.url,
    });
    const post = (link: string) => async () =>
      expect((await app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key)).status).toBe(200);

    const first = await carried(post(photoPosts.instagramThreePhotos));
    expect(first[0]).toBeGreaterThan(0);
    expect(first.slice(1)).toEqual([0, 0, 0]);
    const second = await carried(post(photoPosts.instagramThreePhotos));
    expect(second[1]).toBeGreaterThan(0);
    expect([second[0], second[2], second[3]]).toEqual([0, 0, 0]);
    const third = await carried(post(photoPosts.tiktokSlideshow));
    expect(third[2]).toBeGreaterThan(0);
    expect([third[0], third[1], third[3]]).toEqual([0, 0, 0]);
  });

  test("a proxy of the list that cannot be reached is set aside, logged and counted; the calls after go through the other", async () => {
    const [, instagramB] = proxies as [LoggingProxy, LoggingProxy];
    const dead = `http://127.0.0.1:${await freePort()}`;
    const app = appWith({ OUTBOUND_PROXY_INSTAGRAM: `${dead},${instagramB.url}` });
    const post = () => app.get(`/api/v1/post?url=${encodeURIComponent(photoPosts.instagramThreePhotos)}`, key);

    expect((await post()).status).toBe(502);
    for (let i = 0; i < 2; i++) {
      const counts = await carried(async () => expect((await post()).status).toBe(200));
      expect(counts[1]).toBeGreaterThan(0);
    }
    const name = new URL(dead).host;
    expect(app.logLines.join("\n")).toContain(`a proxy of INSTAGRAM (${name}) could not be reached; it is set aside`);
    expect(await (await app.get("/metrics")).text()).toContain(
      `media_api_set_aside_total{platform="INSTAGRAM",kind="proxy",name="${name}"} 1`,
    );
  });
});
