// Short links through the app: `post` and `download` follow a short link before any reader sees
// it, and refuse one that leads off its platform with the same 400 problem.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ShortLinkHost, startShortLinkHost } from "../fakes/short-links.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

describe("short links through the app", () => {
  let store: TestStore;
  let host: ShortLinkHost;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, host] = await Promise.all([openTestStore("pglite"), startShortLinkHost()]);
    app = buildTestApp(store.db, { env: { ORIGIN_OVERRIDES: `pin.it=${host.origin},fb.watch=${host.origin}` } });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(() => Promise.all([store?.close(), host?.close()]));

  const call = (operation: string, url: string) => app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}`, key);

  test.each(["post", "download"])(
    "%s of a short link that leads to another platform is 400 unsupported_url",
    async (op) => {
      host.answer("/toYoutube", 302, "https://www.youtube.com/watch?v=jNQXAC9IVRw");
      const response = await call(op, "https://pin.it/toYoutube");
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: "unsupported_url",
        detail:
          "This Pinterest short link leads to www.youtube.com, which is not Pinterest; only a short link that stays on its platform is followed.",
      });
    },
  );

  test("post of a short link that leads nowhere is 404 not_found, its host asked once", async () => {
    host.asked.length = 0;
    host.answer("/gone/", 200);
    const response = await call("post", "https://fb.watch/gone/");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "not_found" });
    expect(host.asked).toEqual(["/gone/"]);
  });
});
