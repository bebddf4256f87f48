// X's thread expansion against the local X that answers with the recorded self thread of
// @XDevelopers (TweetDetail, signed in) and its tweets (TweetResultByRestId, as a guest).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Link } from "../../../src/platforms/source.ts";
import { createXClient } from "../../../src/platforms/x/client.ts";
import { createXThreads } from "../../../src/platforms/x/threads.ts";
import { testOutbound } from "../../helpers/outbound.ts";
import { type FakeXUpstream, startFakeXUpstream, xSession } from "../../fakes/x-upstream.ts";

let upstream: FakeXUpstream;
beforeAll(async () => {
  upstream = await startFakeXUpstream();
});
afterAll(() => upstream.close());

/** The recorded thread: the root and the author's three replies, each to the one before. */
const chain = ["1649191520250245121", "1649191521323995138", "1649191522485817345", "1649191523697979392"].map(
  (id) => `https://x.com/XDevelopers/status/${id}`,
);
const link = (url: string): Link => ({ url: new URL(url), platform: "X" });
const signal = new AbortController().signal;

const threads = (signedIn: boolean, graphql = true) =>
  createXThreads(createXClient({
    syndicationUrl: upstream.syndicationUrl,
    graphql: graphql ? upstream.graphql : null,
    outbound: testOutbound({ timeoutMs: 5_000, trustedOrigins: [upstream.url] }),
    cacheTtlMs: 60_000,
    cacheMaxEntries: 100,
    session: async () => (signedIn ? xSession : null),
  }));

describe("createXThreads() with the operator's X session", () => {
  test("the root stands for the author's chain down, in reading order, without the others' replies", async () => {
    const before = upstream.calls(new URL(upstream.graphql.tweetDetailUrl).pathname);
    const expansion = await threads(true).expand(link(chain[0]!), 100, signal);
    expect(expansion).toEqual({ posts: chain.map((href) => new URL(href)), complete: true, incomplete: null });
    expect(upstream.calls(new URL(upstream.graphql.tweetDetailUrl).pathname) - before).toBe(1);
  });

  test("a chain longer than the job's limit is cut there and says so", async () => {
    const expansion = await threads(true).expand(
      link(`https://twitter.com/i/web/status/${chain[0]!.split("/").pop()}`),
      3,
      signal,
    );
    expect(expansion?.posts.map(String)).toEqual(chain.slice(0, 3));
    expect(expansion).toMatchObject({
      complete: false,
      incomplete: "The thread goes on past the 3 posts a job may hold.",
    });
  });

  test("a post its author did not reply to is one post", async () => {
    expect(await threads(true).expand(link(chain[3]!), 100, signal)).toBeNull();
  });

  test("a post X does not show is 404", async () => {
    await expect(threads(true).expand(link("https://x.com/a/status/1000000000000000009"), 100, signal)).rejects
      .toMatchObject({ code: "not_found" });
  });
});

describe("createXThreads() without a session", () => {
  test("the chain up to the linked post, root first, and not complete, saying why", async () => {
    const before = upstream.calls(new URL(upstream.graphql.tweetDetailUrl).pathname);
    const expansion = await threads(false).expand(link(chain[2]!), 100, signal);
    expect(expansion?.posts.map(String)).toEqual(chain.slice(0, 3));
    expect(expansion?.complete).toBe(false);
    expect(expansion?.incomplete).toMatch(/only to a signed-in account.*COOKIES_FILE/);
    // No conversation was asked for: X refuses it to guests.
    expect(upstream.calls(new URL(upstream.graphql.tweetDetailUrl).pathname)).toBe(before);
  });

  test("a reply to someone else's post starts its own chain", async () => {
    // @ashevat's reply to the root: its parent is by another author, so the chain is the reply alone.
    const expansion = await threads(false).expand(
      link("https://x.com/ashevat/status/1649263296434806785"),
      100,
      signal,
    );
    expect(expansion?.posts.map(String)).toEqual(["https://x.com/ashevat/status/1649263296434806785"]);
    // X counts 2 replies to it, which may be its author's: only a session would show.
    expect(expansion?.complete).toBe(false);
  });

  test("a post X counts no reply to, replying to no post of its author's, is the post alone, complete", async () => {
    // A reply to the root by someone else, with no reply of its own (reply_count 0 as recorded): nothing is below it.
    expect(await threads(false).expand(link("https://x.com/i/status/1649593041966219264"), 100, signal)).toBeNull();
  });

  test("with X's GraphQL API off, the post alone", async () => {
    expect(await threads(false, false).expand(link(chain[2]!), 100, signal)).toBeNull();
  });
});
