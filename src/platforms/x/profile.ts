// An X profile link in a job (platforms/source.ts, Expands): the account's own posts, newest first, read as X's web
// client reads a profile, signed in as the operator's account (X shows a profile's timeline to no guest):
// UserByScreenName for its id, then UserTweets a page at a time until the timeline ends or the job is full.
import { profileExpansion } from "../profile-expansion.ts";
import type { Expansion } from "../source.ts";
import type { XSession } from "./session-cookies.ts";
import type { GraphqlAsk } from "./client.ts";
import { ownPosts, profileUserId, type TimelinePage, timelinePage } from "./timeline.ts";

/** Tweets asked for in one answer, as X's web client asks. */
const PAGE_SIZE = 20;

// What X's web client sends with UserTweets (twscrape's variables), but ads: they are others' posts.
const timelineVariables = {
  count: PAGE_SIZE,
  includePromotedContent: false,
  withQuickPromoteEligibilityTweetFields: true,
  withVoice: true,
  withV2Timeline: true,
};

export async function profilePosts(
  ask: GraphqlAsk,
  session: XSession,
  { handle, limit, signal }: { handle: string; limit: number; signal: AbortSignal },
): Promise<Expansion> {
  const user = await ask("UserByScreenName", { screen_name: handle, withSafetyModeUserFields: true }, session);
  const userId = profileUserId(user, handle);
  const pages: TimelinePage[] = [];
  let cursor: string | null = null;
  for (;;) {
    signal.throwIfAborted();
    const variables = { userId, ...timelineVariables, ...(cursor === null ? {} : { cursor }) };
    const page = timelinePage(await ask("UserTweets", variables, session));
    pages.push(page);
    // A page without tweets, or one that leads back to itself, is the timeline's end.
    const ended = page.tweets.length === 0 || page.next === null || page.next === cursor;
    const posts = ownPosts(pages, userId, ended);
    if (ended || posts.length >= limit) return profileExpansion(posts, limit, !ended);
    cursor = page.next;
  }
}
