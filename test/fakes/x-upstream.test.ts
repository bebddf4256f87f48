import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeTweetIds, type FakeXUpstream, fixturesDir, startFakeXUpstream } from "./x-upstream.ts";

let upstream: FakeXUpstream;
beforeAll(async () => {
  upstream = await startFakeXUpstream();
});
afterAll(() => upstream.close());

describe("startFakeXUpstream()", () => {
  it("serves the recorded syndication body byte for byte and counts requests per path", async () => {
    const response = await fetch(`${upstream.syndicationUrl}/tweet-result?id=746487912313688067&token=x`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      readFileSync(path.join(fixturesDir, "syndication/animated_gif_746487912313688067.json"), "utf8"),
    );
    expect((await fetch(`${upstream.url}/tweet-result?id=${fakeTweetIds.empty}`)).status).toBe(200);
    expect((await fetch(`${upstream.url}/tweet-result?id=${fakeTweetIds.unknown}`)).status).toBe(404);
    expect(upstream.calls("/tweet-result")).toBe(3);
  });

  it("wants a guest token it issued on the GraphQL route", async () => {
    const query = `?variables=${encodeURIComponent(JSON.stringify({ tweetId: "20" }))}`;
    expect((await fetch(`${upstream.graphql.tweetResultUrl}${query}`)).status).toBe(403);
    const activation = await fetch(upstream.graphql.guestActivateUrl, { method: "POST" });
    const { guest_token } = (await activation.json()) as { guest_token: string };
    const answer = await fetch(`${upstream.graphql.tweetResultUrl}${query}`, {
      headers: { "x-guest-token": guest_token },
    });
    expect(
      ((await answer.json()) as { data: { tweetResult: { result: { rest_id: string } } } }).data.tweetResult.result
        .rest_id,
    ).toBe("20");
  });

  it("switches a route to a failure mode and back", async () => {
    upstream.setMode("syndication", { kind: "status", status: 503 });
    expect((await fetch(`${upstream.url}/tweet-result?id=20`)).status).toBe(503);
    upstream.setMode("syndication", { kind: "reset" });
    await expect(fetch(`${upstream.url}/tweet-result?id=20`)).rejects.toThrow();
    upstream.setMode("syndication", { kind: "normal" });
    expect((await fetch(`${upstream.url}/tweet-result?id=20`)).status).toBe(200);
  });
});
