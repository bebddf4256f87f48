// What one extraction may read through the egress gate: hostile pages anyone can host (a page
// without end, a 400 MB page, a page of 200 000 videos, one that trickles forever) and an API
// answer without end read by gallery-dl over TLS each fail with 502 source_too_large, long before
// the extraction's time cap, and the service answers a normal post afterwards. Real yt-dlp and
// gallery-dl, local sources.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEgressGate } from "../../src/net/egress-gate.ts";
import { resolveWithDns } from "../../src/runtime/node/dns.ts";
import { listenLoopback } from "../../src/runtime/node/gate-listener.ts";
import { type HostilePages, startHostilePages } from "../fakes/hostile-pages.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../fakes/photo-platforms.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { endpointKey } from "../../src/net/egress.ts";
import { scaled } from "../helpers/slowness.ts";

let store: TestStore;
let hostile: HostilePages;
let site: MediaSite;
let platforms: PhotoPlatforms;
beforeAll(async () => {
  [store, hostile, site, platforms] = await Promise.all([
    openTestStore("pglite"),
    startHostilePages(),
    startMediaSite(),
    startPhotoPlatforms(),
  ]);
}, scaled(180_000));
afterAll(async () => {
  await Promise.all([store?.close(), hostile?.close(), site?.close(), platforms?.close()]);
});

function appWith(env: Record<string, string> = {}): TestApp {
  return buildTestApp(store.db, {
    env: {
      EXTRA_PAGE_HOSTS: `${hostile.host},${site.host}`,
      ORIGIN_OVERRIDES: platforms.originOverrides,
      GALLERY_DL_CA_FILE: platforms.caFile,
      PAGE_CACHE_TTL_S: "0",
      ...env,
    },
  });
}

async function post(app: TestApp, link: string): Promise<{ status: number; code: string; detail: string }> {
  const key = (await makeKey(store.db, "GOLD")).plain;
  const response = await app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);
  const body = await response.json();
  return { status: response.status, code: body.code, detail: body.detail ?? "" };
}

describe("an extraction's byte budget (EXTRACT_MAX_BYTES, 16 MiB by default)", () => {
  let app: TestApp;
  let small: TestApp;
  beforeAll(() => {
    app = appWith();
    small = appWith({ EXTRACT_MAX_BYTES: "256" });
  });

  test.each(
    [
      ["a page that never ends", "endless", "/endless.html"],
      ["a 400 MB page", "huge", "/huge.html"],
      ["a page listing 200 000 videos", "manyVideos", "/many-videos.html"],
    ] as const,
  )("%s is 502 source_too_large, read no further than the budget, and a normal post answers afterwards", {
    timeout: scaled(120_000),
  }, async (_, page, path) => {
    const answer = await post(app, hostile.pages[page]);
    expect(answer).toMatchObject({ status: 502, code: "source_too_large" });
    expect(answer.detail).toContain("16 MiB");
    expect(answer.detail).toContain(hostile.host);
    // The source was cut near the budget: not the 400 MB, not an endless stream (socket buffers aside).
    expect(hostile.sent(path)).toBeLessThan(64 * 1024 ** 2);

    const normal = await post(app, site.pages.progressive);
    expect(normal.status).toBe(200);
  });

  test("gallery-dl reading an API answer without end, over TLS through a CONNECT tunnel, is 502 source_too_large", {
    timeout: scaled(120_000),
  }, async () => {
    const answer = await post(app, photoPosts.instagramEndless);
    expect(answer).toMatchObject({ status: 502, code: "source_too_large" });
    expect(answer.detail).toContain("www.instagram.com:443");
    expect((await post(app, photoPosts.instagramThreePhotos)).status).toBe(200);
  });

  test(
    "a smaller EXTRACT_MAX_BYTES cuts a page the default lets through; the answer names it",
    { timeout: scaled(60_000) },
    async () => {
      const answer = await post(small, site.pages.progressive);
      expect(answer).toMatchObject({ status: 502, code: "source_too_large" });
      expect(answer.detail).toContain("256 bytes");
    },
  );
});

describe("an extraction's time budget for one answer (EXTRACT_BODY_TIMEOUT_S)", () => {
  test("a page that trickles forever is 502 source_too_large after the budget, before the extraction's time cap", {
    timeout: scaled(120_000),
  }, async () => {
    const app = appWith({ EXTRACT_BODY_TIMEOUT_S: "2", EXTRACT_TIMEOUT_S: "90" });
    const answer = await post(app, hostile.pages.trickle);
    expect(answer).toMatchObject({ status: 502, code: "source_too_large" });
    expect(answer.detail).toContain("kept sending one answer for more than 2 s");
    expect((await post(app, site.pages.progressive)).status).toBe(200);
  });
});

/** The bytes a plain-http GET of `url` through a gate session's proxy URL brings back, headers included. */
async function readThrough(proxyUrl: string, url: string): Promise<number> {
  const proxy = new URL(proxyUrl);
  const credentials = Buffer.from(`${proxy.username}:${proxy.password}`).toString("base64");
  const socket = net.connect(Number(proxy.port), "127.0.0.1");
  socket.write(
    `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nProxy-Authorization: Basic ${credentials}\r\n\r\n`,
  );
  let bytes = 0;
  for await (const chunk of socket) bytes += (chunk as Buffer).length;
  return bytes;
}

describe("the gate's sessions", () => {
  test("a media session (ffmpeg's) is not held to the extraction budget; an extraction's is, and reads nothing more once past it", async () => {
    const trusted = new Set([endpointKey("127.0.0.1", Number(new URL(site.origin).port))]);
    const gate = createEgressGate({
      policy: { trusted, resolveHost: resolveWithDns },
      listen: listenLoopback,
      outbound: null,
      extractionBudget: { maxBytes: 16 * 1024, bodyTimeoutMs: 60_000 },
    });
    try {
      const clip = `${site.origin}/media/clip.mp4`;
      const media = await gate.session("media");
      expect(await readThrough(media.proxyUrl, clip)).toBeGreaterThan(64 * 1024);
      expect(media.overBudget()).toBeNull();

      const extraction = await gate.session("extraction");
      expect(await readThrough(extraction.proxyUrl, clip)).toBeLessThan(64 * 1024);
      expect(extraction.overBudget()).toMatchObject({ status: 502, code: "source_too_large" });
      // A tool that retries hears 502 at once.
      expect(await readThrough(extraction.proxyUrl, `${site.origin}/progressive.html`)).toBeLessThan(200);
      media.close();
      extraction.close();
    } finally {
      await gate.close();
    }
  });
});
