// X's expansion for jobs (platforms/source.ts, Expands): a post link stands for its author's own
// thread. With the operator's X session, the chain down from the post, from the conversation X
// shows a signed-in account (TweetDetail); a post its author did not reply to is one post (null). Without one X shows no conversation, so the chain is
// read up to the post instead, tweet by tweet as a guest (each names the tweet it replies to),
// and the expansion says it is not complete, unless X counts no reply to the post. A profile link
// stands for the account's own posts (profile.ts), which X shows only to a signed-in account too.
import type { Expands, Expansion } from "../source.ts";
import { notFound } from "./errors.ts";
import { profilePosts } from "./profile.ts";
import type { GraphqlAsk, XClient } from "./client.ts";
import { chainDown, conversationTweets, resultTweet, type ThreadTweet } from "./thread.ts";
import { standsForMany } from "../table.ts";
import { profileHandleOf, statusOf } from "./url.ts";

// What X's web client sends with TweetDetail (FxEmbed's and nitter's variables).
const detailVariables = {
  referrer: "tweet",
  with_rux_injections: false,
  rankingMode: "Relevance",
  includePromotedContent: false,
  withCommunity: false,
  withQuickPromoteEligibilityTweetFields: false,
  withBirdwatchNotes: true,
  withVoice: false,
};
const resultVariables = { withCommunity: false, includePromotedContent: false, withVoice: false };

const noSessionWords = "this service has no X session (COOKIES_FILE with x.com's auth_token and ct0)";
const noSession = `X shows the replies below a post only to a signed-in account, and ${noSessionWords}: ` +
  "the thread is read up to the linked post, not below it.";
const noProfileSession: Expansion = {
  posts: [],
  complete: false,
  incomplete:
    `X shows a profile's posts only to a signed-in account, and ${noSessionWords}; pass the links of its posts`,
};

/**
 * The author's chain from the post up, root first, ending with the post: at most `limit` tweets,
 * and `more` when it goes on above them.
 */
async function chainUp(
  ask: GraphqlAsk,
  id: string,
  limit: number,
  signal: AbortSignal,
): Promise<{ chain: ThreadTweet[]; more: boolean }> {
  const chain: ThreadTweet[] = [];
  let next: string | null = id;
  while (next !== null && chain.length < limit) {
    signal.throwIfAborted();
    const tweet = resultTweet(await ask("TweetResultByRestId", { tweetId: next, ...resultVariables }));
    if (tweet === null) {
      if (chain.length === 0) throw notFound(id);
      break;
    }
    chain.unshift(tweet);
    next = tweet.replyTo?.authorId === tweet.authorId ? tweet.replyTo.id : null;
  }
  return { chain, more: next !== null && chain.length >= limit };
}

const expansion = (tweets: ThreadTweet[], incomplete: string | null): Expansion => ({
  posts: tweets.map((tweet) => tweet.link),
  complete: incomplete === null,
  incomplete,
});

/**
 * The chain up to the linked post, read without a session: complete when X counts no reply to the post (nothing
 * can be below it), and then no expansion at all for a post that replies to no post of its author's; else it may
 * go on below, which only a session shows.
 */
function withoutSession({ chain, more }: { chain: ThreadTweet[]; more: boolean }, limit: number): Expansion | null {
  const cut = more ? pastLimit(limit) : null;
  if (chain.at(-1)!.replyCount !== 0) return expansion(chain, [noSession, cut].filter(Boolean).join(" "));
  return chain.length === 1 ? null : expansion(chain, cut);
}

const pastLimit = (limit: number) => `The thread goes on past the ${limit} posts a job may hold.`;

export function createXThreads(x: XClient): Expands<Expansion> {
  return {
    async expand(link, limit, signal, threads = true) {
      const ask = x.graphql;
      const handle = profileHandleOf(link.url);
      // With X's GraphQL API off (X_GRAPHQL_URL=off) the operator keeps to syndication, which shows no thread and
      // no profile. A profile's tab or a list is not listed (the job says so of the link).
      if (ask === null || (handle === null && (!threads || standsForMany(link.url, link.platform)))) return null;
      const session = await x.session();
      if (handle !== null) {
        return session === null ? noProfileSession : profilePosts(ask, session, { handle, limit, signal });
      }
      const id = statusOf(link).id;
      if (session === null) return withoutSession(await chainUp(ask, id, limit, signal), limit);
      const answer = await ask("TweetDetail", { focalTweetId: id, ...detailVariables }, session);
      const chain = chainDown(conversationTweets(answer), id);
      if (chain.length === 0) throw notFound(id);
      if (chain.length === 1) return null;
      const cut = chain.length > limit ? pastLimit(limit) : null;
      return expansion(chain.slice(0, limit), cut);
    },
  };
}
