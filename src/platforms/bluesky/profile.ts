// A Bluesky profile link in a job (platforms/source.ts, Expands): the profile's own posts, newest
// first as its Posts tab shows them, read from the public AppView's author feed a page at a time
// until the feed ends or the job is full.
import { profileExpansion } from "../profile-expansion.ts";
import type { Expansion } from "../source.ts";
import type { AppView } from "./appview.ts";
import { authorFeedPage } from "./author-feed.ts";

/** Posts asked for in one answer: a page of 50 views stays well inside the answer's byte bound. */
const PAGE_SIZE = 50;

export async function profilePosts(
  appView: AppView,
  actor: string,
  limit: number,
  signal: AbortSignal,
): Promise<Expansion> {
  const posts: URL[] = [];
  let cursor: string | null = null;
  do {
    signal.throwIfAborted();
    const page = authorFeedPage(await appView.authorFeed(actor, cursor, PAGE_SIZE));
    posts.push(...page.posts);
    cursor = page.cursor;
  } while (cursor !== null && posts.length < limit);
  return profileExpansion(posts, limit, cursor !== null);
}
