// An X profile's posts as a job reads them, from X's GraphQL answers to a signed-in account. Pure.
// UserByScreenName names the account's id. UserTweets lists its timeline a page at a time: `TimelineAddEntries` of
// tweets (`TimelineTimelineItem`), modules (a conversation of the account's own, or accounts to follow) and cursors
// (`cursor-bottom` goes on), and on the first page its pinned tweet (`TimelinePinEntry`). A page without tweets is its
// end (twscrape reads it so). The account's own posts are its tweets that are no retweet (a timeline shows the
// account's retweets of others' tweets, and ads, which are others' tweets).
import { z } from "zod";
import { ApiError } from "../../http/problem.ts";
import { unknownAnswerShape } from "./errors.ts";
import { Entry, entryTweets, type ThreadTweet } from "./thread.ts";

const UserByScreenNameAnswer = z.object({
  // An account X does not know is `{"data":{}}` or `{"data":{"user":{}}}`.
  data: z.object({ user: z.object({ result: z.unknown().optional() }).optional() }),
});
const UserResult = z.discriminatedUnion("__typename", [
  z.object({ __typename: z.literal("User"), rest_id: z.string() }),
  z.object({ __typename: z.literal("UserUnavailable"), reason: z.string().optional() }),
]);

/** The account id of `handle`: 404 for an account X does not know, `post_unavailable` for one it does not show. */
export function profileUserId(answer: unknown, handle: string): string {
  const parsed = UserByScreenNameAnswer.safeParse(answer);
  if (!parsed.success) throw unknownAnswerShape(parsed.error);
  const result = parsed.data.data.user?.result;
  if (result === undefined) throw new ApiError("not_found", `X has no account @${handle}; check the link.`);
  const user = UserResult.safeParse(result);
  if (!user.success) throw unknownAnswerShape(user.error);
  if (user.data.__typename === "User") return user.data.rest_id;
  throw new ApiError(
    "post_unavailable",
    `X does not show the posts of @${handle}: ${user.data.reason ?? "the account is unavailable"}.`,
  );
}

const Instruction = z.object({
  type: z.string().optional(),
  entries: z.array(Entry).optional(),
  entry: Entry.optional(),
});
const Timeline = z.object({ timeline: z.object({ instructions: z.array(Instruction) }) });
const UserTweetsAnswer = z.object({
  data: z.object({
    user: z.object({
      // `timeline` since 2025, `timeline_v2` before.
      result: z.object({ timeline: Timeline.optional(), timeline_v2: Timeline.optional() }),
    }),
  }),
});

/** A page of a timeline: its tweets (of anyone) in its order, the pinned one, and the cursor of the next page. */
export interface TimelinePage {
  tweets: ThreadTweet[];
  pinned: ThreadTweet | null;
  next: string | null;
}

/** A UserTweets answer's page; 502 for a shape this does not read. */
export function timelinePage(answer: unknown): TimelinePage {
  const parsed = UserTweetsAnswer.safeParse(answer);
  if (!parsed.success) throw unknownAnswerShape(parsed.error);
  const { timeline, timeline_v2 } = parsed.data.data.user.result;
  const instructions = (timeline ?? timeline_v2)?.timeline.instructions ?? [];
  const entries = instructions.filter((i) => i.type !== "TimelinePinEntry").flatMap((i) => i.entries ?? []);
  const pin = instructions.find((i) => i.type === "TimelinePinEntry")?.entry;
  return {
    tweets: entryTweets(entries),
    pinned: pin === undefined ? null : entryTweets([pin])[0] ?? null,
    next: entries.find((entry) => entry.content.cursorType === "Bottom")?.content.value ?? null,
  };
}

/**
 * The account's own posts of the pages read, newest first (by id: X's ids grow with time), each once. The pinned
 * post stands at its own time, where the pages read reach it (`ended`: they are the whole timeline).
 */
export function ownPosts(pages: readonly TimelinePage[], authorId: string, ended: boolean): URL[] {
  const read = pages.flatMap((page) => page.tweets);
  const ids = read.map((tweet) => BigInt(tweet.id));
  const oldest = ids.reduce((min, id) => (id < min ? id : min), ids[0] ?? 0n);
  const pinned = pages.flatMap((page) => (page.pinned === null ? [] : [page.pinned]));
  const reached = pinned.filter((tweet) => ended || (ids.length > 0 && BigInt(tweet.id) >= oldest));
  const own = [...read, ...reached].filter((tweet) => tweet.authorId === authorId && !tweet.retweet);
  const once = new Map(own.map((tweet) => [tweet.id, tweet]));
  return [...once.values()].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1)).map((tweet) => tweet.link);
}
