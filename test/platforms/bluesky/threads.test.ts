// Bluesky's expansion against the local AppView that answers with the recorded threads and author feed.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bluesky } from "../../../src/platforms/bluesky/platform.ts";
import { createBlueskyThreads } from "../../../src/platforms/bluesky/threads.ts";
import type { Link } from "../../../src/platforms/source.ts";
import { testOutbound } from "../../helpers/outbound.ts";
import {
  authorFeedPage,
  cardThread,
  type FakeBluesky,
  feedAuthor,
  imagesThread,
  linkOf,
  startFakeBluesky,
} from "../../fakes/bluesky.ts";
import { scaled } from "../../helpers/slowness.ts";

let fake: FakeBluesky;
beforeAll(async () => {
  fake = await startFakeBluesky();
}, scaled(120_000));
afterAll(() => fake?.close());

const threads = (depthPerAnswer?: number) =>
  createBlueskyThreads({
    platform: bluesky,
    baseUrl: fake.origin,
    outbound: testOutbound({ name: "Bluesky", timeoutMs: 10_000, trustedOrigins: [fake.origin] }),
    depthPerAnswer,
  });
const link = (url: string): Link => ({ url: new URL(url), platform: "BLUESKY" });
const signal = new AbortController().signal;
const post = (rkey: string) => `https://bsky.app/profile/jbgruber.bsky.social/post/${rkey}`;
/** The recorded thread's chain: the root and the author's three replies, each to the one before. */
const chain = ["3kbi55xm6u62v", "3kbi56mwx5j2q", "3kbi57u4sys2l", "3kbi5dzaujr2n"].map(post);

describe("createBlueskyThreads()", () => {
  test("a thread's root stands for the author's chain of replies, in reading order", async () => {
    const expansion = await threads().expand(link(linkOf(cardThread.thread.post)), 100, signal);
    expect(expansion).toEqual({ posts: chain.map((href) => new URL(href)), complete: true, incomplete: null });
  });

  test("a post in the middle of a thread stands for the chain from it down", async () => {
    const expansion = await threads().expand(link(post("3kbi57u4sys2l")), 100, signal);
    expect(expansion?.posts.map(String)).toEqual(chain.slice(2));
    expect(expansion?.complete).toBe(true);
  });

  test("a chain deeper than one answer is read on in further answers", async () => {
    const before = fake.calls.length;
    const expansion = await threads(1).expand(link(post("3kbi55xm6u62v")), 100, signal);
    expect(expansion?.posts.map(String)).toEqual(chain);
    const asked = fake.calls.slice(before).filter((call) => call.startsWith("app.bsky.feed.getPostThread"));
    // Each answer ends on a post whose replies it left out; the last post counts none, so no answer is asked for it.
    expect(asked.map((call) => new URLSearchParams(call.split("?")[1]).get("uri")!.split("/").pop())).toEqual([
      "3kbi55xm6u62v",
      "3kbi56mwx5j2q",
      "3kbi57u4sys2l",
    ]);
  });

  test("a chain longer than the job's limit is cut there and says so", async () => {
    const expansion = await threads().expand(link(post("3kbi55xm6u62v")), 2, signal);
    expect(expansion).toEqual({
      posts: chain.slice(0, 2).map((href) => new URL(href)),
      complete: false,
      incomplete: "The thread goes on past the 2 posts a job may hold.",
    });
  });

  test("a post its author did not reply to is one post", async () => {
    expect(await threads().expand(link(linkOf(imagesThread.thread.post)), 100, signal)).toBeNull();
    // The last post of the recorded chain.
    expect(await threads().expand(link(chain[3]!), 100, signal)).toBeNull();
  });

  test("a missing post is 404, as the post operation says", async () => {
    await expect(threads().expand(link(post("3kbi5zzzzzzzz")), 100, signal)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("createBlueskyThreads() of a profile link", () => {
  const profile = (actor: string) => link(`https://bsky.app/profile/${actor}`);
  /** The recorded profile's own posts in its Posts tab (posts_and_author_threads), newest first: no reposts. */
  const ownPosts = authorFeedPage("posts_and_author_threads", null, 100).feed
    .filter((item) => !("reason" in item))
    .map((item) => linkOf(item.post));

  test("stands for the profile's own posts, newest first, read a page at a time to the feed's end", async () => {
    const before = fake.calls.length;
    const expansion = await threads().expand(profile(feedAuthor.handle), 100, signal);
    // The recording's 50 items less its reposts and the replies to other people's threads.
    expect(ownPosts).toHaveLength(20);
    expect(expansion).toEqual({ posts: ownPosts.map((href) => new URL(href)), complete: true, incomplete: null });
    const asked = fake.calls.slice(before).map((call) => new URLSearchParams(call.split("?")[1]));
    expect(asked.map((params) => [params.get("actor"), params.get("filter"), params.get("cursor")])).toEqual([
      [feedAuthor.handle, "posts_and_author_threads", null],
      [feedAuthor.handle, "posts_and_author_threads", authorFeedPage("posts_and_author_threads", null, 50).cursor],
    ]);
  });

  test("a profile of more posts than the job holds is cut there and says so; its DID works as its handle", async () => {
    const expansion = await threads().expand(profile(feedAuthor.did), 5, signal);
    expect(expansion).toEqual({
      posts: ownPosts.slice(0, 5).map((href) => new URL(href)),
      complete: false,
      incomplete: "The profile has more posts than the 5 a job may hold.",
    });
  });

  test("a profile Bluesky does not know is 404", async () => {
    await expect(threads().expand(profile("nobody.example.com"), 10, signal)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
