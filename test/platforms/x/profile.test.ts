// An X profile in a job against the local X: signed in, UserByScreenName then UserTweets page by page over the
// recorded timeline of @XDevelopers (its retweets, a conversation of its own, its pinned post) and the older page and
// end the fake makes after it; without a session, or for a tab or a list, no listing. Through the app and the queue:
// test/jobs/expansion.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Link } from "../../../src/platforms/source.ts";
import { createXClient } from "../../../src/platforms/x/client.ts";
import { createXThreads } from "../../../src/platforms/x/threads.ts";
import { ownPosts, timelinePage } from "../../../src/platforms/x/timeline.ts";
import { testOutbound } from "../../helpers/outbound.ts";
import { type FakeXUpstream, fixturesDir, startFakeXUpstream, xSession } from "../../fakes/x-upstream.ts";
import { readFileSync } from "node:fs";
import path from "node:path";

let upstream: FakeXUpstream;
beforeAll(async () => {
  upstream = await startFakeXUpstream();
});
afterAll(() => upstream.close());

const link = (url: string): Link => ({ url: new URL(url), platform: "X" });
const signal = new AbortController().signal;
const profiles = (signedIn: boolean) =>
  createXThreads(createXClient({
    syndicationUrl: upstream.syndicationUrl,
    graphql: upstream.graphql,
    outbound: testOutbound({ timeoutMs: 5_000, trustedOrigins: [upstream.url] }),
    cacheTtlMs: 60_000,
    cacheMaxEntries: 100,
    session: async () => (signedIn ? xSession : null),
  }));
const timelineCalls = () => upstream.calls(new URL(upstream.graphql.userTweetsUrl).pathname);

/**
 * @XDevelopers' own posts, newest first: of the recorded page, its conversation (a post and its reply) and two posts
 * (the other 15 tweets are retweets); of the older page the same four, 2 * 10^16 lower; then the pinned post.
 */
const recordedOwn = ["2082640276389249363", "2082640274845811115", "2074882755905585583", "2072126677535346779"];
const ownIds = [
  ...recordedOwn,
  ...recordedOwn.map((id) => String(BigInt(id) - 20_000_000_000_000_000n)),
  "2019881223666233717",
];
const postLink = (id: string) => new URL(`https://x.com/XDevelopers/status/${id}`);

describe("an X profile with the operator's session", () => {
  test("is the account's own posts, newest first, to the timeline's end: no retweet, the pinned post once", async () => {
    const before = timelineCalls();
    const expansion = await profiles(true).expand(link("https://x.com/XDevelopers"), 100, signal);
    expect(expansion).toEqual({ posts: ownIds.map(postLink), complete: true, incomplete: null });
    // The recorded page, the older one, and the end.
    expect(timelineCalls() - before).toBe(3);
  });

  test("is cut at the job's limit, saying so, without reading past it", async () => {
    const before = timelineCalls();
    const expansion = await profiles(true).expand(link("https://twitter.com/XDevelopers/"), 3, signal);
    expect(expansion).toEqual({
      posts: ownIds.slice(0, 3).map(postLink),
      complete: false,
      incomplete: "The profile has more posts than the 3 a job may hold.",
    });
    expect(timelineCalls() - before).toBe(1);
  });

  test("an account X does not know is 404; a tab or a list is not listed", async () => {
    await expect(profiles(true).expand(link("https://x.com/nosuchaccount1"), 10, signal)).rejects.toMatchObject({
      code: "not_found",
    });
    for (const url of ["https://x.com/XDevelopers/media", "https://x.com/i/lists/123"]) {
      expect(await profiles(true).expand(link(url), 10, signal)).toBeNull();
    }
  });
});

test("without a session an X profile gives no post, and says X wants a signed-in account", async () => {
  const before = upstream.calls();
  const expansion = await profiles(false).expand(link("https://x.com/XDevelopers"), 100, signal);
  expect(expansion).toMatchObject({ posts: [], complete: false });
  expect(expansion?.incomplete).toMatch(/profile's posts only to a signed-in account.*COOKIES_FILE/);
  expect(upstream.calls()).toBe(before);
});

test("a pinned post older than the pages read stays out until the timeline's end reaches it", () => {
  const recorded = JSON.parse(
    readFileSync(path.join(fixturesDir, "graphql", "UserTweets_XDevelopers_2244994945.json"), "utf8"),
  );
  const page = timelinePage(recorded);
  expect(page.pinned?.id).toBe("2019881223666233717");
  expect(page.next).toMatch(/^DAAH/);
  expect(ownPosts([page], "2244994945", false).map(String)).toEqual(recordedOwn.map((id) => postLink(id).href));
  expect(ownPosts([page], "2244994945", true).at(-1)?.href).toBe(postLink("2019881223666233717").href);
});
