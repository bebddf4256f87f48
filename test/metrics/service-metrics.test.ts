// /metrics as an operator's Prometheus sees it: counters that move with real requests, the token,
// and labels that never carry a key or anything a caller sent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashKey } from "../../src/auth/api-key.ts";
import { createServiceMetrics } from "../../src/metrics/service-metrics.ts";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { Reply } from "../../src/runtime/serve.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { fakeTweetIds, type FakeXUpstream, fixturesDir, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

const TOKEN = "metrics-token-0123456789";

/** The value of one series in a scrape, 0 when it is absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  let store: TestStore;
  let x: FakeXUpstream;
  let cdn: FakeCdn;
  const env = () => ({
    X_SYNDICATION_URL: x.syndicationUrl,
    X_GRAPHQL_URL: x.url,
    X_GRAPHQL_QUERY_ID: "fakeQueryId",
    ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}`,
    METRICS_TOKEN: TOKEN,
  });
  beforeAll(async () => {
    [store, x, cdn] = await Promise.all([openTestStore("pglite"), startFakeXUpstream(), startFakeCdn()]);
  });
  afterAll(async () => {
    await Promise.all([store?.close(), x?.close(), cdn?.close()]);
  });

  it("wants the METRICS_TOKEN when one is set, and is open when none is", async () => {
    const { get } = buildTestApp(store.db, { env: env() });
    const missing = await get("/metrics");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await missing.json()).code).toBe("invalid_metrics_token");
    expect((await get("/metrics", "metrics-token-012345678X")).status).toBe(401);
    expect((await get("/metrics", TOKEN.slice(0, -1))).status).toBe(401);
    const allowed = await get("/metrics", TOKEN);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await allowed.text()).toContain("# TYPE media_api_requests_total counter");
    const open = await buildTestApp(store.db).get("/metrics");
    expect(open.status).toBe(200);
  });

  it("without a METRICS_TOKEN answers only this machine: a loopback client that no untrusted proxy forwarded", async () => {
    const from = (env: Record<string, string>) => {
      const { app } = buildTestApp(store.db, { env });
      return async (path: string, peer: string, forwardedFor?: string) => {
        const headers = forwardedFor === undefined ? undefined : { "x-forwarded-for": forwardedFor };
        return (await app.fetch(new Request(`http://test.local${path}`, { headers }), peer)).status;
      };
    };
    const direct = from({});
    for (const peer of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      expect(await direct("/metrics", peer)).toBe(200);
    }
    for (const peer of ["203.0.113.9", "10.0.0.5", "::ffff:192.168.1.2", "2001:db8::1"]) {
      expect(await direct("/metrics", peer)).toBe(401);
    }
    const refused = await buildTestApp(store.db).app.fetch(new Request("http://test.local/platformz"), "203.0.113.9");
    expect(refused.status).toBe(401);
    expect((await refused.json()).detail).toMatch(
      /no METRICS_TOKEN.*only requests from its own machine.*sets METRICS_TOKEN/,
    );
    expect(await direct("/platformz", "127.0.0.1")).toBe(200);
    // A proxy on this machine forwards strangers: unnamed, its requests are refused whoever sent them.
    expect(await direct("/metrics", "127.0.0.1", "203.0.113.9")).toBe(401);
    expect(await direct("/metrics", "127.0.0.1", "127.0.0.1")).toBe(401);
    const proxied = from({ TRUST_PROXY: "127.0.0.1" });
    expect(await proxied("/metrics", "127.0.0.1", "203.0.113.9")).toBe(401);
    expect(await proxied("/platformz", "127.0.0.1", "203.0.113.9")).toBe(401);
    expect(await proxied("/metrics", "127.0.0.1", "127.0.0.1")).toBe(200);
    // With a token, where the request comes from does not matter.
    const { app } = buildTestApp(store.db, { env: { METRICS_TOKEN: TOKEN } });
    const scrape = new Request("http://test.local/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await app.fetch(scrape, "203.0.113.9")).status).toBe(200);
  });

  it("counts requests by route pattern and status, with a latency histogram", async () => {
    const key = await makeKey(store.db, "PRO");
    const { get } = buildTestApp(store.db, { env: env() });
    await get("/api/v1/usage", key.plain);
    await get("/api/v1/usage", key.plain);
    await get("/api/v1/usage");
    await get("/api/v1/no/such/thing?secret=1", key.plain);
    await get("/favicon.ico");
    const text = await (await get("/metrics", TOKEN)).text();
    expect(sample(text, 'media_api_requests_total{route="/api/v1/usage",status="200"}')).toBe(2);
    expect(sample(text, 'media_api_requests_total{route="/api/v1/usage",status="401"}')).toBe(1);
    expect(sample(text, 'media_api_requests_total{route="unmatched",status="404"}')).toBe(2);
    expect(sample(text, 'media_api_request_duration_seconds_count{route="/api/v1/usage"}')).toBe(3);
    expect(sample(text, 'media_api_request_duration_seconds_bucket{route="/api/v1/usage",le="+Inf"}')).toBe(3);
    expect(text).not.toContain("no/such");
    expect(text).not.toContain("favicon");
  });

  it("counts quota refusals by tier and code", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get } = buildTestApp(store.db, { env: env() });
    for (let i = 0; i < 12; i++) await get("/api/v1/usage", key.plain);
    const text = await (await get("/metrics", TOKEN)).text();
    expect(sample(text, 'media_api_quota_refusals_total{tier="FREE",code="burst_exceeded"}')).toBe(2);
    expect(sample(text, 'media_api_requests_total{route="/api/v1/usage",status="429"}')).toBe(2);
  });

  it("counts upstream calls and failures by upstream", async () => {
    const key = await makeKey(store.db, "GOLD");
    const { get } = buildTestApp(store.db, { env: env() });
    const tweet = (id: string) =>
      get(`/api/v1/tweet?url=${encodeURIComponent(`https://x.com/a/status/${id}`)}`, key.plain);
    expect((await tweet("1491475671058681863")).status).toBe(200);
    expect((await tweet(fakeTweetIds.unknown)).status).toBe(404);
    x.setMode("syndication", { kind: "status", status: 503 });
    try {
      // Syndication fails, so the GraphQL fallback activates a guest token and answers.
      expect((await tweet("1491475671058681864")).status).toBe(404);
    } finally {
      x.setMode("syndication", { kind: "normal" });
    }
    const text = await (await get("/metrics", TOKEN)).text();
    expect(sample(text, 'media_api_upstream_calls_total{upstream="x_syndication"}')).toBe(3);
    expect(sample(text, 'media_api_upstream_failures_total{upstream="x_syndication"}')).toBe(1);
    expect(sample(text, 'media_api_upstream_calls_total{upstream="x_guest_token"}')).toBe(1);
    expect(sample(text, 'media_api_upstream_calls_total{upstream="x_graphql"}')).toBe(1);
    expect(sample(text, 'media_api_upstream_failures_total{upstream="x_graphql"}')).toBe(0);
  });

  it("counts bytes relayed and media-host calls, and holds an active download until its response is done", async () => {
    const key = await makeKey(store.db, "GOLD");
    const { app, get } = buildTestApp(store.db, { env: env() });
    const downloadRequest = (path: string) =>
      new Request(`http://test.local/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`, {
        headers: { authorization: `Bearer ${key.plain}` },
      });
    const request = downloadRequest("/file/70000/a.mp4");
    const reply = await app.answer(request, { peer: "127.0.0.1", requestId: "a" });
    const response = reply.response;
    expect(response.status).toBe(200);
    const scrape = async () => (await get("/metrics", TOKEN)).text();
    expect(sample(await scrape(), 'media_api_downloads_active{mode="direct"}')).toBe(1);
    expect((await response.arrayBuffer()).byteLength).toBe(70000);
    // In-process there is no server adapter, so the test says what the adapter would.
    reply.done({ ended: "complete" });
    let text = await scrape();
    expect(sample(text, 'media_api_downloads_active{mode="direct"}')).toBe(0);
    expect(sample(text, 'media_api_relayed_bytes_total{mode="direct"}')).toBe(70000);

    // A body without Content-Length is counted as it passes.
    const chunked = downloadRequest("/file/3000/b.mp4?chunked=1");
    const chunkedReply = await app.answer(chunked, { peer: "127.0.0.1", requestId: "b" });
    await chunkedReply.response.arrayBuffer();
    chunkedReply.done({ ended: "complete" });
    // A refused download never becomes active, and a missing file is a healthy media host.
    expect(
      (await get(`/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/status/404")}`, key.plain)).status,
    ).toBe(404);
    expect(
      (await get(`/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/status/503")}`, key.plain)).status,
    ).toBe(502);
    text = await scrape();
    expect(sample(text, 'media_api_relayed_bytes_total{mode="direct"}')).toBe(73000);
    expect(sample(text, 'media_api_downloads_active{mode="direct"}')).toBe(0);
    expect(sample(text, 'media_api_upstream_calls_total{upstream="media_host"}')).toBe(4);
    expect(sample(text, 'media_api_upstream_failures_total{upstream="media_host"}')).toBe(1);
  });

  it("counts an X post link relayed from the CDN as a direct download, by what the handler did", async () => {
    const key = await makeKey(store.db, "GOLD");
    const { app, get } = buildTestApp(store.db, { env: env() });
    const recorded = JSON.parse(
      readFileSync(join(fixturesDir, "syndication/video_nasa_1491475671058681863.json"), "utf8"),
    );
    for (const variant of recorded.mediaDetails[0].video_info.variants) {
      variant.url = "https://video.twimg.com/file/5000/clip.mp4";
    }
    x.setMode("syndication", { kind: "json", body: recorded });
    const request = new Request(
      `http://test.local/api/v1/download?url=${encodeURIComponent("https://x.com/NASA/status/1491475671058681863")}`,
      {
        headers: { authorization: `Bearer ${key.plain}` },
      },
    );
    let reply: Reply;
    try {
      reply = await app.answer(request, { peer: "127.0.0.1", requestId: "c" });
    } finally {
      x.setMode("syndication", { kind: "normal" });
    }
    expect(reply.response.status).toBe(200);
    const scrape = async () => (await get("/metrics", TOKEN)).text();
    let text = await scrape();
    expect(sample(text, 'media_api_downloads_active{mode="direct"}')).toBe(1);
    expect(sample(text, 'media_api_downloads_active{mode="page"}')).toBe(0);
    const bytes = (await reply.response.arrayBuffer()).byteLength;
    reply.done({ ended: "complete" });
    text = await scrape();
    expect(sample(text, 'media_api_downloads_active{mode="direct"}')).toBe(0);
    expect(sample(text, 'media_api_relayed_bytes_total{mode="direct"}')).toBe(bytes);
    expect(sample(text, 'media_api_relayed_bytes_total{mode="page"}')).toBe(0);
  });

  it("ends an active download when the Node server has sent the response, or the client went away", async () => {
    const key = await makeKey(store.db, "GOLD");
    const { app } = buildTestApp(store.db, { env: env() });
    const server = await serveNode(app, { port: 0, hostname: "127.0.0.1" });
    const download = (path: string, signal?: AbortSignal) =>
      fetch(`${server.address}/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`, {
        headers: { authorization: `Bearer ${key.plain}` },
        signal,
      });
    const active = async () =>
      sample(
        await (await fetch(`${server.address}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text(),
        'media_api_downloads_active{mode="direct"}',
      );
    try {
      expect((await (await download("/file/300000/whole.mp4")).arrayBuffer()).byteLength).toBe(300000);
      await expect.poll(active).toBe(0);

      const controller = new AbortController();
      const big = await download("/file/1073741824/big.mp4", controller.signal);
      await big.body!.getReader().read();
      expect(await active()).toBe(1);
      controller.abort();
      await expect.poll(active).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("never puts a key, its hash or its id into a label", async () => {
    const key = await makeKey(store.db, "FREE");
    const { get } = buildTestApp(store.db, { env: env() });
    for (let i = 0; i < 11; i++) await get("/api/v1/usage", key.plain);
    await get(`/api/v1/${key.plain}`, key.plain);
    const text = await (await get("/metrics", TOKEN)).text();
    expect(text).toContain('tier="FREE"');
    expect(text).not.toContain(key.plain.slice(4, 16));
    expect(text).not.toContain((await hashKey(key.plain)).slice(0, 16));
    expect(text).not.toContain(key.id);
  });
});

describe("createServiceMetrics() hooks", () => {
  it("holds a child-process or download slot until its release, once however often released", () => {
    const metrics = createServiceMetrics();
    const first = metrics.childStarted("ffmpeg");
    const second = metrics.childStarted("ffmpeg");
    metrics.childStarted("yt-dlp")();
    const page = metrics.downloadStarted("page");
    first();
    first();
    const text = metrics.render();
    expect(sample(text, 'media_api_child_processes{tool="ffmpeg"}')).toBe(1);
    expect(sample(text, 'media_api_child_processes{tool="yt-dlp"}')).toBe(0);
    expect(sample(text, 'media_api_downloads_active{mode="page"}')).toBe(1);
    second();
    page();
    expect(sample(metrics.render(), 'media_api_child_processes{tool="ffmpeg"}')).toBe(0);
    expect(sample(metrics.render(), 'media_api_downloads_active{mode="page"}')).toBe(0);
  });

  it("counts the slots taken by kind", () => {
    const metrics = createServiceMetrics();
    metrics.slotTaken("remuxes");
    metrics.slotTaken("remuxes");
    metrics.slotTaken("encodes");
    const text = metrics.render();
    expect(text).toContain("# TYPE media_api_slots_taken_total counter");
    expect(sample(text, 'media_api_slots_taken_total{kind="remuxes"}')).toBe(2);
    expect(sample(text, 'media_api_slots_taken_total{kind="encodes"}')).toBe(1);
  });
});
