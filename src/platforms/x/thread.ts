// An X thread as a job reads it, from X's GraphQL answers, and the tweets of a timeline's entries (a profile's,
// x/timeline.ts, reads them the same way). Pure.
// Down from a post (TweetDetail, as a signed-in account): the conversation's tweets are the
// entries of `threaded_conversation_with_injections_v2`, the focal tweet and its ancestors as
// single entries, the replies in modules; the author's own chain goes on at each tweet with the
// first tweet of theirs that replies to it (X puts a self thread in the first module, as twscrape
// and nitter read it).
// Up to a post (TweetResultByRestId, as a guest): each tweet names the tweet it replies to and
// that tweet's author, so the chain goes up while the author replies to themselves.
import { z } from "zod";
import { unknownAnswerShape } from "./errors.ts";

/** A tweet of a thread or a timeline: where it sits in the conversation, and its link. */
export interface ThreadTweet {
  id: string;
  authorId: string;
  /** A retweet: the author's share of someone's tweet, which the timeline shows as the author's. */
  retweet: boolean;
  /** The tweet it replies to and that tweet's author; null for a tweet that replies to none. */
  replyTo: { id: string; authorId: string } | null;
  /** Replies to it, of anyone, as X counts them; null where the answer does not say. */
  replyCount: number | null;
  link: URL;
}

const Tweet = z.object({
  __typename: z.literal("Tweet"),
  rest_id: z.string(),
  core: z.object({
    user_results: z.object({
      result: z.object({
        core: z.object({ screen_name: z.string().optional() }).optional(),
        legacy: z.object({ screen_name: z.string().optional() }).optional(),
      }),
    }),
  }),
  legacy: z.object({
    user_id_str: z.string(),
    in_reply_to_status_id_str: z.string().optional(),
    in_reply_to_user_id_str: z.string().optional(),
    reply_count: z.number().optional(),
    retweeted_status_result: z.unknown().optional(),
  }),
});
// Posts with limited visibility wrap the tweet once more; a tombstone is no tweet of the thread.
const Wrapped = z.object({ __typename: z.literal("TweetWithVisibilityResults"), tweet: z.unknown() });
const ItemContent = z.object({ tweet_results: z.object({ result: z.unknown() }).optional() });
/** An entry of a conversation or timeline: a tweet, a module of them, or a cursor (`cursorType`, `value`). */
export const Entry = z.object({
  content: z.object({
    itemContent: ItemContent.optional(),
    items: z.array(z.object({ item: z.object({ itemContent: ItemContent.optional() }) })).optional(),
    cursorType: z.string().optional(),
    value: z.string().optional(),
  }),
});
export type Entry = z.infer<typeof Entry>;
const TweetDetailAnswer = z.object({
  data: z.object({
    threaded_conversation_with_injections_v2: z.object({
      instructions: z.array(z.object({ entries: z.array(Entry).optional() })),
    }),
  }),
});
const TweetResultAnswer = z.object({ data: z.object({ tweetResult: z.object({ result: z.unknown() }) }) });

function threadTweet(result: unknown): ThreadTweet | null {
  const wrapped = Wrapped.safeParse(result);
  const parsed = Tweet.safeParse(wrapped.success ? wrapped.data.tweet : result);
  if (!parsed.success) return null;
  const tweet = parsed.data;
  const user = tweet.core.user_results.result;
  const handle = user.core?.screen_name ?? user.legacy?.screen_name ?? "i";
  const { in_reply_to_status_id_str: parentId, in_reply_to_user_id_str: parentAuthorId } = tweet.legacy;
  return {
    id: tweet.rest_id,
    authorId: tweet.legacy.user_id_str,
    retweet: tweet.legacy.retweeted_status_result !== undefined,
    replyTo: parentId && parentAuthorId ? { id: parentId, authorId: parentAuthorId } : null,
    replyCount: tweet.legacy.reply_count ?? null,
    link: new URL(`https://x.com/${handle}/status/${tweet.rest_id}`),
  };
}

/** Every tweet of a TweetDetail answer, in the order X shows them; 502 for a shape this does not read. */
export function conversationTweets(answer: unknown): ThreadTweet[] {
  const parsed = TweetDetailAnswer.safeParse(answer);
  if (!parsed.success) throw unknownAnswerShape(parsed.error);
  return entryTweets(
    parsed.data.data.threaded_conversation_with_injections_v2.instructions.flatMap((i) => i.entries ?? []),
  );
}

/** The tweets of entries, in their order: each entry's, and each of a module's; neither tombstones nor users. */
export function entryTweets(entries: readonly Entry[]): ThreadTweet[] {
  const contents = entries.flatMap((entry) => [
    entry.content.itemContent,
    ...(entry.content.items ?? []).map((cell) => cell.item.itemContent),
  ]);
  return contents.map((content) => threadTweet(content?.tweet_results?.result)).filter((tweet) => tweet !== null);
}

/** The author's own chain from the focal tweet down, in reading order; empty when the focal tweet is not shown. */
export function chainDown(tweets: readonly ThreadTweet[], focalId: string): ThreadTweet[] {
  let current = tweets.find((tweet) => tweet.id === focalId);
  const chain: ThreadTweet[] = [];
  while (current !== undefined && !chain.includes(current)) {
    chain.push(current);
    const { id, authorId } = current;
    current = tweets.find((tweet) => tweet.authorId === authorId && tweet.replyTo?.id === id);
  }
  return chain;
}

/** The tweet of a TweetResultByRestId answer; null when X shows none (missing, deleted, hidden). */
export function resultTweet(answer: unknown): ThreadTweet | null {
  const parsed = TweetResultAnswer.safeParse(answer);
  if (!parsed.success) throw unknownAnswerShape(parsed.error);
  return threadTweet(parsed.data.data.tweetResult.result);
}
