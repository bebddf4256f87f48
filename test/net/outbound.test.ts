// The outbound client against local hosts that play a platform gone bad: every hop is checked with
// the egress policy before a connection opens, the session's headers stay with their origin,
// redirects are bounded, and a body is read only up to its bound.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { type Canary, startCanary } from "../fakes/canary.ts";
import { type HostilePlatform, pouredBytes, startHostilePlatform } from "../fakes/hostile-platform.ts";
import { testOutbound } from "../helpers/outbound.ts";
import { until } from "../helpers/until.ts";

let home: HostilePlatform;
let elsewhere: HostilePlatform;
let canary: Canary;

beforeAll(async () => {
  [home, elsewhere, canary] = await Promise.all([startHostilePlatform(), startHostilePlatform(), startCanary()]);
});
afterAll(() => Promise.all([home?.close(), elsewhere?.close(), canary?.close()]));
beforeEach(() => {
  home.requests.length = 0;
  elsewhere.requests.length = 0;
});

// Both fakes are trusted endpoints, as a configured API base is; the canary is not.
const outbound = () => testOutbound({ name: "Testland", trustedOrigins: [home.origin, elsewhere.origin] });
const session = { cookie: "auth_token=secret", "x-csrf-token": "csrf-secret", authorization: "Bearer secret" };

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(() => new Error("expected the exchange to fail"), (error: unknown) => error);
  if (outcome instanceof ApiError) return outcome;
  throw outcome;
}

describe("the outbound client", () => {
  test("a redirect to an address the egress policy refuses is 502, and no connection reaches it", async () => {
    home.answer({ kind: "redirect", location: `${canary.origin}/steal` });
    const error = await failure(outbound().json({ url: new URL(`${home.origin}/api`), maxBytes: 1024 }));
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
    expect(error.message).toBe(`Testland led this server to ${canary.host}, which it does not reach; try again later.`);
    expect(home.requests).toHaveLength(1);
    expect(canary.connections()).toBe(0);
  });

  test("the session's headers go to their own origin, and not across a redirect to another", async () => {
    home.answer({ kind: "redirect", location: `${elsewhere.origin}/next` });
    elsewhere.answer({ kind: "redirect", location: `${home.origin}/back` });
    // home -> elsewhere -> home -> elsewhere ... is a loop the client ends.
    const error = await failure(
      outbound().text({
        url: new URL(`${home.origin}/start`),
        headers: { accept: "text/plain" },
        session,
        maxBytes: 1,
      }),
    );
    expect(error.message).toBe("Testland redirects in a loop; try again later.");
    expect(home.requests.map((request) => request.path)).toEqual(["/start", "/back"]);
    expect(elsewhere.requests.map((request) => request.path)).toEqual(["/next"]);
    for (const request of home.requests) expect(request.headers).toMatchObject({ ...session, accept: "text/plain" });
    const crossed = elsewhere.requests[0]!.headers;
    expect(crossed.accept).toBe("text/plain");
    expect([crossed.cookie, crossed["x-csrf-token"], crossed.authorization]).toEqual([undefined, undefined, undefined]);
  });

  test("more than five redirects is 502", async () => {
    // Each hop's Location differs, so this is no loop: only the bound stops it.
    home.answer({ kind: "redirect", location: (path) => `${path}/on` });
    const error = await failure(outbound().text({ url: new URL(`${home.origin}/start`), maxBytes: 1 }));
    expect(error.message).toBe("Testland redirects more than 5 times; try again later.");
    expect(home.requests).toHaveLength(6);
  });

  test('"manual" answers the redirect itself, its Location for the caller to read', async () => {
    home.answer({ kind: "redirect", location: `${canary.origin}/note/1` });
    const answer = await outbound().text({ url: new URL(`${home.origin}/s/1`), redirect: "manual", maxBytes: 1 });
    expect([answer.status, answer.headers.get("location"), answer.text]).toEqual([
      302,
      `${canary.origin}/note/1`,
      null,
    ]);
    expect(canary.connections()).toBe(0);
  });

  test("a body past its bound is 502 after at most the bound, and the host stops sending", async () => {
    home.answer({ kind: "pour", head: "#EXTM3U\n", contentType: "application/vnd.apple.mpegurl" });
    const before = home.sent();
    const error = await failure(outbound().text({ url: new URL(`${home.origin}/playlist.m3u8`), maxBytes: 2 ** 20 }));
    expect([error.status, error.message]).toEqual([
      502,
      "Testland answered with more than 1048576 bytes; try again later.",
    ]);
    await until("the host's connection to close", () => home.connections() === 0, 10_000);
    // What the sockets' buffers held when the client let go: far from the 300 MB the host had to send.
    expect(home.sent() - before).toBeLessThan(pouredBytes / 10);
  });
});
