// Short links followed by the service through the outbound client, against a local host that
// plays the platforms' short-link hosts (ORIGIN_OVERRIDES send each short host to it): a short
// link is followed hop by hop to its post, only while it stays on its platform, a few hops at most.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { platformList } from "../../src/platforms/list.ts";
import { createLinkResolver, MAX_SHORT_LINK_HOPS } from "../../src/platforms/short-links.ts";
import { type Canary, startCanary } from "../fakes/canary.ts";
import { type ShortLinkHost, startShortLinkHost } from "../fakes/short-links.ts";
import { testOutbound } from "../helpers/outbound.ts";

let host: ShortLinkHost;
let canary: Canary;

beforeAll(async () => {
  [host, canary] = await Promise.all([startShortLinkHost(), startCanary()]);
});
afterAll(() => Promise.all([host?.close(), canary?.close()]));
beforeEach(() => void (host.asked.length = 0));

/** Each platform's short-link samples, with a post sample of the same platform that each stands for here. */
const shortSamples = platformList.flatMap((platform) => {
  const post = platform.samples.find((sample) => sample.shape === "post")!;
  return platform.samples.filter((sample) => sample.shape === "short").map((short) => ({
    platform: platform.name,
    short: short.url,
    post: post.url,
  }));
});
const shortHosts = [
  ...new Set([
    "vm.tiktok.com",
    "pin.it",
    "b23.tv",
    "fb.watch",
    "redd.it",
    "www.reddit.com",
    "on.soundcloud.com",
    ...shortSamples.map(({ short }) => new URL(short).hostname),
  ]),
];
const resolve = (url: string) => {
  const originOverrides = new Map(shortHosts.map((name) => [name, host.origin]));
  return createLinkResolver(testOutbound({ name: "The short link's host", originOverrides }))(new URL(url));
};

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(() => new Error("expected the link to be refused"), (error: unknown) => error);
  if (outcome instanceof ApiError) return outcome;
  throw outcome;
}

describe("following short links", () => {
  test("a TikTok short link is followed to its post, and the post's link is what a reader gets", async () => {
    host.answer("/ZMabc123/", 301, "https://www.tiktok.com/@leenabhushan/video/6748451240264420610?_r=1");
    const link = await resolve("https://vm.tiktok.com/ZMabc123/");
    expect(link.href).toBe("https://www.tiktok.com/@leenabhushan/video/6748451240264420610?_r=1");
    expect(host.asked).toEqual(["/ZMabc123/"]);
  });

  test("a Reddit share link is followed through redd.it, each hop asked, to the post", async () => {
    host.answer("/r/videos/s/Xyz123", 301, "https://redd.it/6rrwyj");
    host.answer("/6rrwyj", 301, "https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/");
    const link = await resolve("https://www.reddit.com/r/videos/s/Xyz123");
    expect(link.href).toBe("https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/");
    expect(host.asked).toEqual(["/r/videos/s/Xyz123", "/6rrwyj"]);
  });

  test.each(shortSamples)("$platform: a short link ($short) is followed through the gate to its post", async (each) => {
    const short = new URL(each.short);
    host.answer(short.pathname + short.search, 301, each.post);
    const link = await resolve(each.short);
    expect(link.href).toBe(new URL(each.post).href);
    expect(host.asked).toEqual([short.pathname + short.search]);
  });

  test("a link a short link leads to on a mirror is read on the platform's own host", async () => {
    host.answer("/m2", 302, "https://m.bilibili.com/video/BV13x41117TL");
    expect((await resolve("https://b23.tv/m2")).href).toBe("https://www.bilibili.com/video/BV13x41117TL");
  });

  test("a short link that leads to another platform is refused with 400, and not followed there", async () => {
    host.answer("/elsewhere", 302, "https://www.youtube.com/watch?v=jNQXAC9IVRw");
    const error = await failure(resolve("https://pin.it/elsewhere"));
    expect([error.status, error.code]).toEqual([400, "unsupported_url"]);
    expect(error.message).toBe(
      "This Pinterest short link leads to www.youtube.com, which is not Pinterest; only a short link that stays on its platform is followed.",
    );
    expect(host.asked).toEqual(["/elsewhere"]);
  });

  test("a short link that leads to a private address is refused, and no connection reaches it", async () => {
    host.answer("/inside", 302, `${canary.origin}/admin`);
    const error = await failure(resolve("https://b23.tv/inside"));
    expect([error.status, error.code]).toEqual([400, "unsupported_url"]);
    expect(canary.connections()).toBe(0);
  });

  test(`a short link that keeps redirecting is 502 after ${MAX_SHORT_LINK_HOPS} hops`, async () => {
    for (let hop = 0; hop < 10; hop++) host.answer(`/hop${hop}`, 302, `https://fb.watch/hop${hop + 1}`);
    const error = await failure(resolve("https://fb.watch/hop0"));
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
    expect(error.message).toBe(`This Facebook short link redirects more than ${MAX_SHORT_LINK_HOPS} times.`);
    expect(host.asked).toEqual(["/hop0", "/hop1", "/hop2", "/hop3"]);
  });

  test("a short link that leads nowhere is 404", async () => {
    host.answer("/gone", 200);
    const error = await failure(resolve("https://on.soundcloud.com/gone"));
    expect([error.status, error.code]).toEqual([404, "not_found"]);
    expect(error.message).toBe(
      "This SoundCloud short link leads to no post (on.soundcloud.com answered 200); check the link.",
    );
  });

  test("a post's link and a mirror's are not fetched: the mirror's is read on the platform's host", async () => {
    expect((await resolve("https://www.tiktok.com/@a/video/1")).href).toBe("https://www.tiktok.com/@a/video/1");
    expect((await resolve("https://fxtwitter.com/jack/status/20")).href).toBe("https://x.com/jack/status/20");
    expect((await resolve("https://i.redd.it/abc123.jpg")).href).toBe("https://i.redd.it/abc123.jpg");
    expect(host.asked).toEqual([]);
  });
});
