// Adding a platform the service reads itself is its folder and one line in the list (docs/architecture.md, "Adding a
// source"). The list with that line added (vitest stands the list module in, the one file the line changes) and a
// fixture folder (fixture-platform/kite/: its module, its OwnReader, its reader) route the platform's links to its
// reader, which reads a local fake host; its settings are the service's, and its calls are counted under its id.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { PlatformId } from "../../src/platforms/records.ts";
import type { TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

const LIST = "../../src/platforms/list.ts";

/**
 * The service's modules loaded anew over the list with Kite's line added. The suite's files share one module registry
 * (vitest's `isolate: false`), so the list is stood in for here alone, and the registry emptied before and after; Kite's
 * folder is loaded anew with them, so that its errors are the fresh modules' own.
 */
async function withKiteListed() {
  vi.resetModules();
  const { kite } = await import("./fixture-platform/kite/platform.ts");
  vi.doMock(LIST, async (original) => {
    const list = await original<typeof import("../../src/platforms/list.ts")>();
    return { ...list, platformList: [...list.platformList, kite] };
  });
  return {
    kite,
    ...(await import("../../src/config.ts")),
    ...(await import("../../src/platforms/list.ts")),
    ...(await import("../../src/platforms/table.ts")),
    ...(await import("../helpers/app.ts")),
  };
}

const TOKEN = "metrics-token-0123456789";
// The ids the compiler knows are the service's list's; in the service, the new module's line there adds its id.
const KITE = "KITE" as PlatformId;
const post = { text: "A kite over the dunes", author: "Ada" };

/** Kite's API: one post, and a 404 for any other. */
function startKiteApi(): Promise<{ server: Server; origin: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url!);
    const found = request.url === "/posts/abc123";
    response.writeHead(found ? 200 : 404, { "content-type": "application/json" });
    response.end(found ? JSON.stringify(post) : "{}");
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}`, asked });
    })
  );
}

describe("a platform of the service's own reader added as its folder and a line of the list", () => {
  let store: TestStore;
  let api: Awaited<ReturnType<typeof startKiteApi>>;
  let app: TestApp;
  let key: string;
  let service: Awaited<ReturnType<typeof withKiteListed>>;

  beforeAll(async () => {
    service = await withKiteListed();
    const { buildTestApp, makeKey } = service;
    [store, api] = await Promise.all([openTestStore("pglite"), startKiteApi()]);
    key = (await makeKey(store.db, "GOLD")).plain;
    app = buildTestApp(store.db, { env: { KITE_API_URL: api.origin, METRICS_TOKEN: TOKEN } });
  }, scaled(120_000));
  afterAll(async () => {
    await store?.close();
    api?.server.close();
    vi.doUnmock(LIST);
    vi.resetModules();
  });

  const postOf = (link: string) => app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);

  test("is in the list, its links read by its own reader", () => {
    expect(service.platformList.at(-1)).toBe(service.kite);
    expect(service.readerOf(new URL("https://kite.test/p/abc123"), KITE)).toBe("own");
  });

  test("has its settings merged into the service's, with their defaults and checks", () => {
    const { parseConfig } = service;
    const settings = (env: Record<string, string>) => parseConfig(env) as unknown as Record<string, unknown>;
    expect(settings({ KITE_API_URL: api.origin })).toMatchObject({ KITE_API_URL: api.origin, KITE_TIMEOUT_MS: 8000 });
    expect(settings({})).toMatchObject({ KITE_API_URL: "https://api.kite.test" });
    expect(() => parseConfig({ KITE_TIMEOUT_MS: "soon" })).toThrow(/KITE_TIMEOUT_MS/);
  });

  test("answers a post of its host with what its reader read from the platform's API", async () => {
    const response = await postOf("https://kite.test/p/abc123");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      platform: "KITE",
      id: "abc123",
      url: "https://kite.test/p/abc123",
      text: post.text,
      authorName: post.author,
    });
    expect(api.asked).toContain("/posts/abc123");
  });

  test("tells a link of its host of no shape it reads the shapes its module knows", async () => {
    const response = await postOf("https://kite.test/about");
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toContain("https://kite.test/p/abc123");
  });

  test("counts its reader's calls under its id", async () => {
    expect((await postOf("https://kite.test/p/gone")).status).toBe(404);
    const metrics = await (await app.get("/metrics", TOKEN)).text();
    expect(metrics).toMatch(/^media_api_upstream_calls_total\{upstream="kite"\} [1-9]/m);
  });
});
