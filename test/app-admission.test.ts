// The path every /api/v1 request walks: CORS, routing, bearer key, quota and burst, problem+json.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashKey } from "../src/auth/api-key.ts";
import { updateApiKey } from "../src/store/api-keys.ts";
import type { Db } from "../src/store/db.ts";
import { buildTestApp, makeKey, TestClock } from "./helpers/app.ts";
import { openTestStore, storeKinds, type TestStore } from "./helpers/stores.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function problem(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status: response.status,
    detail: expect.any(String),
  });
  return body;
}

function rateHeaders(response: Response) {
  return {
    limit: response.headers.get("x-ratelimit-limit"),
    remaining: response.headers.get("x-ratelimit-remaining"),
    tier: response.headers.get("x-ratelimit-tier"),
  };
}

/** Counts the queries that reach the store, to show what never touches it. */
function counting(db: Db): Db & { queries: number } {
  const wrapped = { ...db, queries: 0 };
  wrapped.query = (text, params) => {
    wrapped.queries += 1;
    return db.query(text, params);
  };
  return wrapped;
}

describe.each(storeKinds)("the API gate on %s", (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(() => store.close());

  it("answers 401 with WWW-Authenticate when the header is missing, and for garbage without a store lookup", async () => {
    const db = counting(store.db);
    const { get } = buildTestApp(db);
    const missing = await get("/api/v1/usage");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await problem(missing)).code).toBe("missing_api_key");

    for (
      const header of [
        "Basic abc",
        "Bearer",
        "Bearer xva_short",
        "Bearer nope_" + "a".repeat(43),
        "Bearer xva_" + "a".repeat(42) + "!",
      ]
    ) {
      const response = await get("/api/v1/usage", undefined, { headers: { authorization: header } });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await problem(response)).code).toBe("invalid_api_key");
      expect(rateHeaders(response).limit).toBeNull();
    }
    expect(db.queries).toBe(0);
  });

  it("tells a caller who sent a good key without the word Bearer to add it", async () => {
    const db = counting(store.db);
    const { get } = buildTestApp(db);
    const response = await get("/api/v1/usage", undefined, { headers: { authorization: "xva_" + "A".repeat(43) } });
    expect(response.status).toBe(401);
    const body = await problem(response);
    expect(body.code).toBe("missing_api_key");
    expect(body.detail).toContain("without the word `Bearer`");
    expect(db.queries).toBe(0);
  });

  it("answers 401 for a well-formed key it does not know", async () => {
    const { get } = buildTestApp(store.db);
    const response = await get("/api/v1/usage", "xva_" + "A".repeat(43));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await problem(response)).code).toBe("invalid_api_key");
  });

  it("serves a usable key with rate-limit headers, CORS headers and its usage", async () => {
    const key = await makeKey(store.db, "PRO");
    const { get, clock } = buildTestApp(store.db);
    const response = await get("/api/v1/usage", key.plain);
    expect(response.status).toBe(200);
    expect(rateHeaders(response)).toEqual({ limit: "10000", remaining: "9999", tier: "PRO" });
    // draft-ietf-httpapi-ratelimit-headers: both windows, each with what is left and when a unit frees.
    expect(response.headers.get("ratelimit-policy")).toBe('"day";q=10000;w=86400, "burst";q=300;w=60');
    expect(response.headers.get("ratelimit")).toBe('"day";r=9999;t=86400, "burst";r=299;t=60');
    expect(response.headers.get("access-control-expose-headers")).toContain("RateLimit-Policy");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
    expect(response.headers.get("access-control-expose-headers")).toContain("Retry-After");
    expect(response.headers.get("access-control-expose-headers")).toContain("Content-Disposition");
    expect(response.headers.get("access-control-expose-headers")).toContain("Estimated-Content-Length");
    expect(await response.json()).toEqual({
      apiKeyId: key.id,
      tier: "PRO",
      dailyLimit: 10000,
      remaining: 9999,
      burstLimit: 300,
      burstWindowSec: 60,
      windowResetsAt: new Date(clock.current.getTime() + DAY).toISOString(),
    });
    const last = await store.db.query<{ last_used_at: Date }>("SELECT last_used_at FROM api_keys WHERE id = $1", [
      key.id,
    ]);
    expect(last[0]!.last_used_at.toISOString()).toBe(clock.current.toISOString());
  });

  it("refuses a passive key with 403 and headers, uncounted, and serves it again once usable", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get } = buildTestApp(store.db);
    expect((await get("/api/v1/usage", key.plain)).status).toBe(200);
    await updateApiKey(store.db, key.id, { passive: true });
    const refused = await get("/api/v1/usage", key.plain);
    expect(refused.status).toBe(403);
    expect(rateHeaders(refused)).toEqual({ limit: "100", remaining: "99", tier: "FREE" });
    expect((await problem(refused)).code).toBe("key_passive");
    await updateApiKey(store.db, key.id, { passive: false });
    const again = await get("/api/v1/usage", key.plain);
    expect(again.status).toBe(200);
    expect(rateHeaders(again).remaining).toBe("98");
  });

  it("refuses a key once its expiry passes", async () => {
    const clock = new TestClock();
    const key = await makeKey(store.db, "GOLD", { now: clock.now(), expiresInDays: 30 });
    const { get } = buildTestApp(store.db, { clock });
    clock.advance(30 * DAY - 1000);
    expect((await get("/api/v1/usage", key.plain)).status).toBe(200);
    clock.advance(1000);
    const refused = await get("/api/v1/usage", key.plain);
    expect(refused.status).toBe(403);
    expect(rateHeaders(refused)).toEqual({ limit: "100000", remaining: "99999", tier: "GOLD" });
    expect((await problem(refused)).code).toBe("key_expired");
  });

  it("allows the tier's burst in any 60 s, refuses the next with Retry-After, and does not count refusals", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get, clock } = buildTestApp(store.db);
    for (let i = 0; i < 10; i++) {
      expect((await get("/api/v1/usage", key.plain)).status).toBe(200);
      clock.advance(1000);
    }
    // 10 requests at t=0..9 s; the 11th at t=10 s is over the burst.
    const refused = await get("/api/v1/usage", key.plain);
    expect(refused.status).toBe(429);
    expect((await problem(refused)).code).toBe("burst_exceeded");
    expect(refused.headers.get("retry-after")).toBe("50");
    // X-RateLimit-* speak of the window that refused: the burst's 10, none left (the day has 90).
    expect(rateHeaders(refused)).toEqual({ limit: "10", remaining: "0", tier: "FREE" });
    // The day has room; the burst window is what refused, and RateLimit says so.
    expect(refused.headers.get("ratelimit")).toBe('"day";r=90;t=86390, "burst";r=0;t=50');
    expect((await get("/api/v1/usage", key.plain)).status).toBe(429);
    // At t=60 s the request made at t=0 has left the window.
    clock.advance(50_000);
    const admitted = await get("/api/v1/usage", key.plain);
    expect(admitted.status).toBe(200);
    expect(rateHeaders(admitted).remaining).toBe("89");
  });

  it("keeps the daily quota over a sliding 24 h window, exact to the minute", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get, clock } = buildTestApp(store.db);
    const start = clock.current.getTime();
    // 100 requests, 10 a minute, over ten minutes.
    for (let i = 0; i < 100; i++) {
      const response = await get("/api/v1/usage", key.plain);
      expect(response.status).toBe(200);
      expect(rateHeaders(response).remaining).toBe(String(99 - i));
      clock.advance(i % 10 === 9 ? MINUTE - 9 * 5000 : 5000);
    }
    const refused = await get("/api/v1/usage", key.plain);
    expect(refused.status).toBe(429);
    expect((await problem(refused)).code).toBe("quota_exceeded");
    expect(rateHeaders(refused).remaining).toBe("0");
    expect(Number(refused.headers.get("retry-after"))).toBe((start + DAY - clock.current.getTime()) / 1000);

    // Just before 24 h after the first minute nothing has left the window.
    clock.current = new Date(start + DAY - 1000);
    expect((await get("/api/v1/usage", key.plain)).status).toBe(429);
    // At 24 h the first minute's ten requests leave it: ten more are admitted, then refused again.
    clock.current = new Date(start + DAY);
    for (let i = 0; i < 10; i++) {
      const response = await get("/api/v1/usage", key.plain);
      expect(response.status).toBe(200);
      clock.advance(1000);
    }
    clock.advance(MINUTE);
    expect((await get("/api/v1/usage", key.plain)).status).toBe(200);
    expect((await get("/api/v1/usage", key.plain)).status).toBe(200);
  });

  it("answers CORS preflights without a key and without counting", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get } = buildTestApp(store.db);
    const preflight = await get("/api/v1/download", undefined, {
      method: "OPTIONS",
      headers: {
        origin: "https://example.org",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization");
    expect(rateHeaders(await get("/api/v1/usage", key.plain)).remaining).toBe("99");
  });

  it("answers 404 for unknown API paths and 405 with Allow for other methods, as problem+json", async () => {
    const { get } = buildTestApp(store.db);
    const unknown = await get("/api/v1/nothing");
    expect(unknown.status).toBe(404);
    expect((await problem(unknown)).code).toBe("not_found");
    const wrong = await get("/api/v1/post", undefined, { method: "POST" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
    expect((await problem(wrong)).code).toBe("method_not_allowed");
    expect(rateHeaders(unknown).limit).toBeNull();
    expect(rateHeaders(wrong).limit).toBeNull();
  });

  it("puts a known key's rate-limit headers on its 404 and 405 too, counted as any request that passes the key check", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get } = buildTestApp(store.db);
    const unknown = await get("/api/v1/nothing", key.plain);
    expect(unknown.status).toBe(404);
    expect(rateHeaders(unknown)).toEqual({ limit: "100", remaining: "99", tier: "FREE" });
    expect(unknown.headers.get("ratelimit")).toMatch(/^"day";r=99;t=\d+, "burst";r=9;t=\d+$/);
    const wrong = await get("/api/v1/post", key.plain, { method: "POST" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
    expect(rateHeaders(wrong)).toEqual({ limit: "100", remaining: "98", tier: "FREE" });
    // A key nobody holds leaves the 404 as it is.
    const stranger = await get("/api/v1/nothing", "xva_" + "A".repeat(43));
    expect(stranger.status).toBe(404);
    expect(rateHeaders(stranger).limit).toBeNull();
  });

  it("validates the url parameter of the three operations", async () => {
    const key = await makeKey(store.db, "PRO");
    const { get } = buildTestApp(store.db);
    for (const operation of ["post", "tweet", "download"]) {
      for (const query of ["", "?url=", "?url=not%20a%20url", "?url=ftp://x.com/a"]) {
        const response = await get(`/api/v1/${operation}${query}`, key.plain);
        expect(response.status).toBe(400);
        expect((await problem(response)).code).toBe("invalid_url");
        expect(rateHeaders(response).tier).toBe("PRO");
      }
    }
  });

  it("serves HEAD like GET without a body", async () => {
    const key = await makeKey(store.db, "PRO");
    const { get } = buildTestApp(store.db);
    const response = await get("/api/v1/usage", key.plain, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
    expect(rateHeaders(response).remaining).toBe("9999");
    // No document, so no JSON type: a client parsing by Content-Type would fail on the empty body.
    expect(response.headers.get("content-type")).toBeNull();
    const refused = await get("/api/v1/usage", undefined, { method: "HEAD" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toBeNull();
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("never writes a key or its hash into a log line", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get, logLines } = buildTestApp(store.db);
    await get("/api/v1/usage", key.plain);
    await get("/api/v1/usage", key.plain.slice(0, -1) + (key.plain.endsWith("A") ? "B" : "A"));
    await get("/api/v1/nothing", key.plain);
    await updateApiKey(store.db, key.id, { passive: true });
    await get("/api/v1/usage", key.plain);
    expect(logLines.length).toBe(4);
    const hash = await hashKey(key.plain);
    for (const line of logLines) {
      expect(line).not.toContain(key.plain.slice(4, 20));
      expect(line).not.toContain(hash.slice(0, 16));
    }
    expect(logLines.some((line) => line.includes(key.id))).toBe(true);
  });

  it("reports health from the store", async () => {
    const { get } = buildTestApp(store.db);
    const healthy = await get("/healthz");
    expect(healthy.status).toBe(200);
    // Liveness only: no tool versions or store kind for anyone who asks.
    expect(await healthy.json()).toEqual({ status: "ok" });
    const broken = { ...store.db, query: () => Promise.reject(new Error("down")) } as Db;
    const sick = await buildTestApp(broken).get("/healthz");
    expect(sick.status).toBe(503);
    expect(await sick.json()).toEqual({ status: "unavailable" });
  });
});
