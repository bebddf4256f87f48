import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/http/problem.ts";
import { graphqlAnswerToTweet } from "../../../src/platforms/x/graphql.ts";
import { createXClient, type XClientOptions } from "../../../src/platforms/x/client.ts";
import { syndicationAnswerToTweet } from "../../../src/platforms/x/syndication.ts";
import { syndicationToken } from "../../../src/platforms/x/token.ts";
import { fakeTweetIds, type FakeXUpstream, startFakeXUpstream, xSession } from "../../fakes/x-upstream.ts";
import { readFixture } from "./read-fixture.ts";
import { testOutbound } from "../../helpers/outbound.ts";
import { startHostilePlatform } from "../../fakes/hostile-platform.ts";

const nasa = "1491475671058681863";
const obama = "266031293945503744";
const jack = "20";
const cockatoo = "1841206275088290279"; // recorded for GraphQL only

let upstream: FakeXUpstream;
let clock: number;

beforeAll(async () => {
  upstream = await startFakeXUpstream();
});
afterAll(() => upstream.close());

const syndicationCalls = () => upstream.calls("/tweet-result");

async function errorOf(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(
    () => new Error("expected the call to fail"),
    (error: unknown) => error,
  );
  if (outcome instanceof ApiError) return outcome;
  throw outcome;
}

// Each test gets a fresh source and resets the fake's modes; counts are compared as deltas.
function source(
  { timeoutMs = 2_000, onExchange, ...overrides }:
    & Partial<XClientOptions>
    & { timeoutMs?: number; onExchange?: (url: URL) => void } = {},
) {
  return createXClient({
    outbound: testOutbound({ timeoutMs, trustedOrigins: [upstream.url], onExchange }),
    syndicationUrl: upstream.syndicationUrl,
    graphql: null,
    cacheTtlMs: 60_000,
    notFoundTtlMs: 10_000,
    cacheMaxEntries: 100,
    backoffBaseMs: 1_000,
    backoffMaxMs: 8_000,
    now: () => clock,
    ...overrides,
  });
}

beforeEach(() => {
  clock = 1_000_000;
  for (const route of ["syndication", "activate", "graphql"] as const) upstream.setMode(route, { kind: "normal" });
});

describe("createXClient() against syndication", () => {
  it("answers the mapped record and sends the id with its token", async () => {
    const urls: string[] = [];
    const tweet = await source({ onExchange: (url) => urls.push(url.href) }).getTweet(nasa);
    expect(tweet).toEqual(
      syndicationAnswerToTweet(readFixture("syndication/video_nasa_1491475671058681863.json"), nasa).record,
    );
    expect(urls).toEqual([
      `${upstream.syndicationUrl}/tweet-result?id=${nasa}&token=${syndicationToken(nasa)}&lang=en`,
    ]);
  });

  it.each([
    ["an unknown id (HTTP 404)", fakeTweetIds.unknown, "not_found"],
    ["an empty answer", fakeTweetIds.empty, "not_found"],
    ["a deleted post", fakeTweetIds.deleted, "post_unavailable"],
    ["a suspended account", fakeTweetIds.suspended, "post_unavailable"],
  ])("answers 404 for %s", async (_name, id, code) => {
    const error = await errorOf(source().getTweet(id));
    expect([error.status, error.code]).toEqual([404, code]);
  });

  it.each(
    [
      ["status 500", { kind: "status", status: 500 }, /status 500/],
      ["status 503", { kind: "status", status: 503 }, /status 503/],
      ["status 429", { kind: "status", status: 429 }, /status 429/],
      ["a body that is not JSON", { kind: "malformed" }, /not JSON/],
      ["JSON of an unknown shape", { kind: "json", body: { __typename: "Tweet", id_str: 20 } }, /does not understand/],
      ["a dropped connection", { kind: "reset" }, /could not be reached/],
    ] as const,
  )("answers 502 upstream_failed for %s", async (_name, mode, detail) => {
    upstream.setMode("syndication", mode);
    const error = await errorOf(source().getTweet(jack));
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
    expect(error.message).toMatch(detail);
  });

  it("answers 502 when the upstream is slower than timeoutMs, without waiting for it", async () => {
    upstream.setMode("syndication", { kind: "delay", ms: 3_000 });
    const started = performance.now();
    const error = await errorOf(source({ timeoutMs: 150 }).getTweet(jack));
    expect([error.status, error.code, error.message]).toEqual([
      502,
      "upstream_failed",
      "X did not answer within 150 ms; try again later.",
    ]);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("rejects an id that is not digits before calling upstream", async () => {
    const before = upstream.calls();
    const error = await errorOf(source().getTweet("20&id=21"));
    expect([error.status, error.code]).toEqual([400, "invalid_url"]);
    expect(upstream.calls()).toBe(before);
  });
});

describe("createXClient() caching", () => {
  it("answers again from the cache until cacheTtlMs has passed", async () => {
    const tweets = source();
    const before = syndicationCalls();
    const first = await tweets.getTweet(obama);
    clock += 59_999;
    expect(await tweets.getTweet(obama)).toEqual(first);
    expect(syndicationCalls() - before).toBe(1);
    clock += 1;
    await tweets.getTweet(obama);
    expect(syndicationCalls() - before).toBe(2);
  });

  it("keeps 404 answers for notFoundTtlMs", async () => {
    const tweets = source();
    const before = syndicationCalls();
    await errorOf(tweets.getTweet(fakeTweetIds.deleted));
    clock += 9_999;
    expect((await errorOf(tweets.getTweet(fakeTweetIds.deleted))).code).toBe("post_unavailable");
    expect(syndicationCalls() - before).toBe(1);
    clock += 1;
    await errorOf(tweets.getTweet(fakeTweetIds.deleted));
    expect(syndicationCalls() - before).toBe(2);
  });

  it("does not keep 502 answers", async () => {
    const tweets = source({ backoffBaseMs: 1 });
    upstream.setMode("syndication", { kind: "status", status: 500 });
    await errorOf(tweets.getTweet(jack));
    upstream.setMode("syndication", { kind: "normal" });
    clock += 1;
    expect((await tweets.getTweet(jack)).text).toBe("just setting up my twttr");
  });

  it("holds at most cacheMaxEntries answers, dropping the least recently used", async () => {
    const tweets = source({ cacheMaxEntries: 2 });
    const before = syndicationCalls();
    await tweets.getTweet(nasa);
    await tweets.getTweet(obama);
    await tweets.getTweet(nasa); // nasa is now the most recently used
    await tweets.getTweet(jack); // evicts obama
    expect(syndicationCalls() - before).toBe(3);
    await tweets.getTweet(nasa);
    expect(syndicationCalls() - before).toBe(3);
    await tweets.getTweet(obama);
    expect(syndicationCalls() - before).toBe(4);
  });
});

describe("createXClient() coalescing", () => {
  it("makes one upstream call for a burst of identical concurrent requests", async () => {
    upstream.setMode("syndication", { kind: "delay", ms: 100 });
    const tweets = source();
    const before = syndicationCalls();
    const answers = await Promise.all(Array.from({ length: 25 }, () => tweets.getTweet(nasa)));
    expect(syndicationCalls() - before).toBe(1);
    expect(new Set(answers.map((a) => a.id))).toEqual(new Set([nasa]));
  });

  it("shares one failure among the burst, too", async () => {
    upstream.setMode("syndication", { kind: "status", status: 502 });
    const tweets = source();
    const before = syndicationCalls();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => tweets.getTweet(obama)));
    expect(outcomes.every((o) => o.status === "rejected" && (o.reason as ApiError).status === 502)).toBe(true);
    expect(syndicationCalls() - before).toBe(1);
  });
});

describe("createXClient() backoff", () => {
  it("answers 502 at once while a failing upstream rests, then probes with growing pauses", async () => {
    upstream.setMode("syndication", { kind: "status", status: 503 });
    const tweets = source();
    const before = syndicationCalls();
    const calls = () => syndicationCalls() - before;

    await errorOf(tweets.getTweet(nasa));
    expect(calls()).toBe(1);
    const resting = await errorOf(tweets.getTweet(obama));
    expect([resting.status, resting.code, resting.headers["retry-after"]]).toEqual([502, "upstream_failed", "1"]);
    expect(calls()).toBe(1);

    clock += 1_000; // the first pause is over: one probe, which fails and doubles the pause
    await errorOf(tweets.getTweet(obama));
    expect(calls()).toBe(2);
    clock += 1_999;
    expect((await errorOf(tweets.getTweet(obama))).headers["retry-after"]).toBe("1");
    expect(calls()).toBe(2);

    upstream.setMode("syndication", { kind: "normal" });
    clock += 1;
    expect((await tweets.getTweet(obama)).id).toBe(obama);
    expect(await tweets.getTweet(nasa)).toMatchObject({ id: nasa });
    expect(calls()).toBe(4);
  });

  it("lets a single probe out while the others still get 502", async () => {
    upstream.setMode("syndication", { kind: "status", status: 500 });
    const tweets = source();
    await errorOf(tweets.getTweet(nasa));
    clock += 1_000;
    upstream.setMode("syndication", { kind: "delay", ms: 100 });
    const before = syndicationCalls();
    const probe = tweets.getTweet(nasa);
    const other = await errorOf(tweets.getTweet(obama));
    expect(other.status).toBe(502);
    expect((await probe).id).toBe(nasa);
    expect(syndicationCalls() - before).toBe(1);
    expect((await tweets.getTweet(obama)).id).toBe(obama);
  });

  it("counts 404 answers as a working upstream", async () => {
    const tweets = source();
    await errorOf(tweets.getTweet(fakeTweetIds.unknown));
    expect((await tweets.getTweet(jack)).id).toBe(jack);
  });
});

describe("createXClient() GraphQL fallback", () => {
  const withGraphql = () => source({ graphql: upstream.graphql });
  const graphqlCalls = () => upstream.calls(new URL(upstream.graphql.tweetResultUrl).pathname);
  const activations = () => upstream.calls("/1.1/guest/activate.json");

  it("asks GraphQL with a guest token when syndication refuses, and skips syndication while it rests", async () => {
    upstream.setMode("syndication", { kind: "status", status: 429 });
    const tweets = withGraphql();
    const [s0, g0, a0] = [syndicationCalls(), graphqlCalls(), activations()];

    const tweet = await tweets.getTweet(cockatoo);
    expect(tweet).toEqual(
      graphqlAnswerToTweet(readFixture("graphql/TweetResultByRestId_video_1841206275088290279.json"), cockatoo).record,
    );
    expect((await tweets.getTweet(jack)).text).toBe("just setting up my twttr");
    expect([syndicationCalls() - s0, graphqlCalls() - g0, activations() - a0]).toEqual([1, 2, 1]);
  });

  it("answers GraphQL's 404s", async () => {
    upstream.setMode("syndication", { kind: "status", status: 403 });
    const error = await errorOf(withGraphql().getTweet(fakeTweetIds.unknown));
    expect([error.status, error.code]).toEqual([404, "not_found"]);
  });

  it("does not ask GraphQL when syndication says the post does not exist", async () => {
    const g0 = graphqlCalls();
    await errorOf(withGraphql().getTweet(fakeTweetIds.deleted));
    expect(graphqlCalls()).toBe(g0);
  });

  it("gets a new guest token after X refuses the old one", async () => {
    upstream.setMode("syndication", { kind: "status", status: 500 });
    const tweets = withGraphql();
    const a0 = activations();
    await tweets.getTweet(cockatoo);
    upstream.revokeGuestTokens();
    const refused = await errorOf(tweets.getTweet(jack));
    expect([refused.status, refused.message]).toEqual([502, "X answered with status 403; try again later."]);
    clock += 1_000;
    expect((await tweets.getTweet(jack)).id).toBe(jack);
    expect(activations() - a0).toBe(2);
  });

  it("answers 502 when both upstreams fail", async () => {
    upstream.setMode("syndication", { kind: "status", status: 500 });
    upstream.setMode("activate", { kind: "status", status: 503 });
    const error = await errorOf(withGraphql().getTweet(jack));
    expect([error.status, error.code, error.message]).toEqual([
      502,
      "upstream_failed",
      "X refused a guest token (status 503); try again later.",
    ]);
  });

  it("answers 502 for a GraphQL answer of unknown shape", async () => {
    upstream.setMode("syndication", { kind: "reset" });
    upstream.setMode("graphql", { kind: "json", body: { data: { tweetResult: { result: { __typename: "Tweet" } } } } });
    const error = await errorOf(withGraphql().getTweet(jack));
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
    expect(error.message).toMatch(/does not understand/);
  });
});

describe("createXClient() as the operator's signed-in account", () => {
  it("sends the session's cookies and CSRF token to X's origin only, never to a redirect's other origin", async () => {
    const elsewhere = await startHostilePlatform();
    try {
      elsewhere.answer({ kind: "redirect", location: `${upstream.url}/not-found` });
      upstream.setMode("graphql", { kind: "redirect", location: `${elsewhere.origin}/graphql` });
      const tweets = createXClient({
        outbound: testOutbound({ trustedOrigins: [upstream.url, elsewhere.origin] }),
        syndicationUrl: upstream.syndicationUrl,
        graphql: upstream.graphql,
        cacheTtlMs: 60_000,
        cacheMaxEntries: 10,
        session: async () => ({ ...xSession }),
      });
      const error = await errorOf(tweets.getTweet(fakeTweetIds.ageRestricted));
      expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
      expect(elsewhere.requests.map((request) => request.path)).toEqual(["/graphql"]);
      const crossed = elsewhere.requests[0]!.headers;
      expect([crossed.cookie, crossed["x-csrf-token"], crossed.authorization]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    } finally {
      await elsewhere.close();
    }
  });

  const graphqlCalls = () => upstream.calls(new URL(upstream.graphql.tweetResultUrl).pathname);
  const recordedVideo = () =>
    graphqlAnswerToTweet(readFixture("graphql/TweetResultByRestId_video_1841206275088290279.json"), cockatoo).record;

  it("without a session an age-restricted post stays 404 post_unavailable with X's reason", async () => {
    const paths: string[] = [];
    const error = await errorOf(
      source({ graphql: upstream.graphql, session: async () => null, onAnswer: (path) => paths.push(path) }).getTweet(
        fakeTweetIds.ageRestricted,
      ),
    );
    expect([error.status, error.code]).toEqual([404, "post_unavailable"]);
    expect(error.message).toContain("Age-restricted adult content");
    expect(paths).toEqual([]);
  });

  it("with a session, the post syndication refuses comes from GraphQL signed in, and says so", async () => {
    const paths: string[] = [];
    const tweets = source({
      graphql: upstream.graphql,
      session: async () => ({ ...xSession }),
      onAnswer: (path) => paths.push(path),
    });
    const g0 = graphqlCalls();
    expect(await tweets.getTweet(fakeTweetIds.ageRestricted)).toEqual(recordedVideo());
    expect(graphqlCalls() - g0).toBe(1);
    expect((await tweets.getTweet(nasa)).id).toBe(nasa);
    expect(paths).toEqual(["cookies", "syndication"]);
  });

  it("when syndication fails, GraphQL as a guest is refused, and the session answers", async () => {
    upstream.setMode("syndication", { kind: "status", status: 429 });
    const paths: string[] = [];
    const tweets = source({
      graphql: upstream.graphql,
      session: async () => ({ ...xSession }),
      onAnswer: (path) => paths.push(path),
    });
    expect((await tweets.getTweet(fakeTweetIds.ageRestricted)).videoVariants.length).toBeGreaterThan(0);
    expect((await tweets.getTweet(jack)).id).toBe(jack);
    expect(paths).toEqual(["cookies", "guest"]);
  });

  it("a session X does not accept is a 502, never the post", async () => {
    const error = await errorOf(
      source({ graphql: upstream.graphql, session: async () => ({ authToken: "old", ct0: "old" }) }).getTweet(
        fakeTweetIds.ageRestricted,
      ),
    );
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
    expect(String(error.cause)).toContain("COOKIES_FILE");
  });
});
