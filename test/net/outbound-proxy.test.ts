// Issue 12 item 5: with OUTBOUND_PROXY set, every outbound request of the service leaves through
// it: X's API calls, the direct relay, and (through the egress gate, which chains to it) yt-dlp's
// page fetch and ffmpeg's media fetch. The gate's address rules still apply first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { type Canary, startCanary } from "../fakes/canary.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { type LoggingProxy, startHttpProxy, startSocks5Proxy } from "../fakes/proxies.ts";
import { type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

describe("OUTBOUND_PROXY", () => {
  let store: TestStore;
  let site: MediaSite;
  let cdn: FakeCdn;
  let x: FakeXUpstream;
  let canary: Canary;
  let key: string;

  beforeAll(async () => {
    [store, site, cdn, x, canary] = await Promise.all([
      openTestStore("pglite"),
      startMediaSite(),
      startFakeCdn(),
      startFakeXUpstream(),
      startCanary(),
    ]);
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(60_000));
  afterAll(async () => {
    await Promise.all([store?.close(), site?.close(), cdn?.close(), x?.close(), canary?.close()]);
  });

  const appThrough = (proxy: LoggingProxy) =>
    buildTestApp(store.db, {
      env: {
        OUTBOUND_PROXY: proxy.url,
        X_SYNDICATION_URL: x.syndicationUrl,
        EXTRA_PAGE_HOSTS: site.host,
        ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}`,
      },
    });

  it("carries X's API call, the direct relay, yt-dlp's page fetch and ffmpeg's media fetch (http proxy)", async () => {
    const proxy = await startHttpProxy("op:secret");
    try {
      const { get } = appThrough(proxy);
      const tweet = await get(
        `/api/v1/tweet?url=${encodeURIComponent("https://x.com/NASA/status/1491475671058681863")}`,
        key,
      );
      expect(tweet.status).toBe(200);
      expect(proxy.log).toContain(`CONNECT ${new URL(x.syndicationUrl).host}`);

      const relayed = await get(`/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/file/5000")}`, key);
      expect(relayed.status).toBe(200);
      expect((await relayed.arrayBuffer()).byteLength).toBe(5000);
      expect(proxy.log).toContain(`CONNECT ${new URL(cdn.origin).host}`);

      const page = await get(`/api/v1/download?url=${encodeURIComponent(site.pages.progressive)}`, key);
      expect(page.status).toBe(200);
      expect((await page.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
      expect(proxy.log).toContain(`GET ${site.pages.progressive}`);
      expect(proxy.log).toContain(`GET ${site.mp4Url}`);
      expect(new Set(proxy.credentials)).toEqual(new Set([`Basic ${Buffer.from("op:secret").toString("base64")}`]));

      // The gate still decides first: the proxy is never asked for a private address.
      const refused = await get(
        `/api/v1/download?url=${
          encodeURIComponent(
            `${site.origin}/crafted.html?video=${
              encodeURIComponent(`${site.origin}/redirect?to=${encodeURIComponent(`${canary.origin}/a.mp4`)}`)
            }`,
          )
        }`,
        key,
      );
      expect(refused.status).toBe(403);
      expect(proxy.log.some((line) => line.includes(canary.host))).toBe(false);
      expect(canary.connections()).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("carries page mode and X's API call through a socks5 proxy with credentials", async () => {
    const proxy = await startSocks5Proxy("op", "secret");
    try {
      const { get } = appThrough(proxy);
      const tweet = await get(
        `/api/v1/tweet?url=${encodeURIComponent("https://x.com/NASA/status/1491475671058681863")}`,
        key,
      );
      expect(tweet.status).toBe(200);
      expect(proxy.log).toContain(new URL(x.syndicationUrl).host);
      const page = await get(`/api/v1/download?url=${encodeURIComponent(site.pages.hls)}`, key);
      expect(page.status).toBe(200);
      expect((await page.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
      expect(proxy.log).toContain(site.host);
      expect(proxy.credentials.every((each) => each === "op:secret")).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it("accepts http, https and socks5 URLs and never shows the credentials in an error", () => {
    expect(parseConfig({ OUTBOUND_PROXY: "socks5://u:p@127.0.0.1:1080" }).OUTBOUND_PROXY).toMatchObject({
      protocol: "socks5:",
      host: "127.0.0.1",
      port: 1080,
      username: "u",
      password: "p",
    });
    expect(parseConfig({ OUTBOUND_PROXY: "https://proxy.example" }).OUTBOUND_PROXY).toMatchObject({
      protocol: "https:",
      port: 443,
    });
    expect(() => parseConfig({ OUTBOUND_PROXY: "ftp://user:hunter2@proxy.example" })).toThrow(/OUTBOUND_PROXY/);
    expect(() => parseConfig({ OUTBOUND_PROXY: "ftp://user:hunter2@proxy.example" })).not.toThrow(/hunter2/);
  });
});
