// The service's own readers through the app, against platforms gone bad (test/fakes/hostile-platform.ts):
// X's syndication and guest-token calls redirected to another loopback address reach nothing there,
// and a 300 MB Bluesky playlist or Xiaohongshu page leaves the service's memory where it was.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type FakeBluesky, linkOf, startFakeBluesky, videoPost } from "../fakes/bluesky.ts";
import { type Canary, startCanary } from "../fakes/canary.ts";
import { type HostilePlatform, startHostilePlatform } from "../fakes/hostile-platform.ts";
import { photoNote } from "../fakes/xiaohongshu.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

let store: TestStore;
let hostile: HostilePlatform;
let canary: Canary;
let bluesky: FakeBluesky;
let key: string;

beforeAll(async () => {
  [store, hostile, canary, bluesky] = await Promise.all([
    openTestStore("pglite"),
    startHostilePlatform(),
    startCanary(),
    startFakeBluesky(),
  ]);
  key = (await makeKey(store.db, "GOLD")).plain;
}, scaled(120_000));
afterAll(() => Promise.all([store?.close(), hostile?.close(), canary?.close(), bluesky?.close()]));

function call(env: Record<string, string>, operation: string, link: string): Promise<Response> {
  return buildTestApp(store.db, { env }).get(`/api/v1/${operation}?url=${encodeURIComponent(link)}`, key);
}

/**
 * The answer of a fresh app with `env`, and how far the process's resident memory rose above where
 * it was while it came. The app is built and has answered once before the count starts: what it
 * makes of itself on its first call is not what a hostile body costs.
 */
async function withPeakRss(
  env: Record<string, string>,
  operation: string,
  link: string,
): Promise<{ response: Response; risenBytes: number }> {
  const app = buildTestApp(store.db, { env });
  await (await app.get("/api/v1/usage", key)).arrayBuffer();
  const answer = () => app.get(`/api/v1/${operation}?url=${encodeURIComponent(link)}`, key);
  const before = process.memoryUsage.rss();
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    const response = await answer();
    await response.arrayBuffer();
    return { response, risenBytes: Math.max(peak, process.memoryUsage.rss()) - before };
  } finally {
    clearInterval(sample);
  }
}

const withinBytes = 50 * 2 ** 20;

describe("the service's own readers through the app", () => {
  test("X's syndication and guest-token bases answering 302 to another loopback address: nothing reaches it", async () => {
    hostile.answer({ kind: "redirect", location: `${canary.origin}/tweet-result` });
    const before = hostile.requests.length;
    const response = await call(
      { X_SYNDICATION_URL: hostile.origin, X_GRAPHQL_URL: hostile.origin },
      "post",
      "https://x.com/jack/status/20",
    );
    expect(response.status).toBe(502);
    // A redirect to an address the service does not reach is no passing fault: trying again cannot help.
    expect((await response.json()).code).toBe("upstream_not_allowed");
    const paths = hostile.requests.slice(before).map((request) => new URL(request.path, "http://x").pathname);
    expect(paths).toEqual(["/tweet-result", "/1.1/guest/activate.json"]);
    expect(canary.connections()).toBe(0);
  });

  test("a 300 MB Bluesky playlist is cut at its bound: 502, and the service's memory stays where it was", async () => {
    hostile.answer({ kind: "pour", head: "#EXTM3U\n", contentType: "application/vnd.apple.mpegurl" });
    const sentBefore = hostile.sent();
    const env = {
      BLUESKY_APPVIEW_URL: bluesky.origin,
      ORIGIN_OVERRIDES: `cdn.bsky.app=${bluesky.origin},video.bsky.app=${hostile.origin}`,
    };
    const { response, risenBytes } = await withPeakRss(env, "download", linkOf(videoPost));
    expect(response.status).toBe(502);
    expect(risenBytes).toBeLessThan(withinBytes);
    expect(hostile.sent() - sentBefore).toBeLessThan(withinBytes);
  });

  test("a 300 MB Xiaohongshu page is cut at its bound: 502, and the service's memory stays where it was", async () => {
    hostile.answer({ kind: "pour", head: "<!DOCTYPE html><html><body>\n", contentType: "text/html" });
    const sentBefore = hostile.sent();
    const link = `https://www.xiaohongshu.com/explore/${photoNote.id}?xsec_token=${photoNote.token}`;
    const env = { ORIGIN_OVERRIDES: `www.xiaohongshu.com=${hostile.origin}` };
    const { response, risenBytes } = await withPeakRss(env, "post", link);
    expect(response.status).toBe(502);
    expect(risenBytes).toBeLessThan(withinBytes);
    expect(hostile.sent() - sentBefore).toBeLessThan(withinBytes);
  });
});
