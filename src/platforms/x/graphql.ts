// Answers of X's web GraphQL query TweetResultByRestId, validated and mapped to a TweetRecord.
// The same tweet object appears inside TweetDetail conversations, so graphqlTweetToRecord takes
// either.
import { z } from "zod";
import type { TweetRecord } from "../records.ts";
import { notFound, unavailable, unknownAnswerShape } from "./errors.ts";
import {
  Entities,
  Media,
  partsToTweetRecord,
  partsToXTweet,
  TextRange,
  type TweetParts,
  type XTweet,
} from "./tweet-parts.ts";

// Until 2025 name, handle and avatar sat in `legacy`; newer answers move them to `core` and `avatar`.
const GraphqlUser = z.object({
  legacy: z
    .object({
      name: z.string().optional(),
      screen_name: z.string().optional(),
      profile_image_url_https: z.string().optional(),
    })
    .optional(),
  core: z.object({ name: z.string().optional(), screen_name: z.string().optional() }).optional(),
  avatar: z.object({ image_url: z.string().optional() }).optional(),
});

export const GraphqlTweet = z.object({
  __typename: z.literal("Tweet"),
  rest_id: z.string(),
  core: z.object({ user_results: z.object({ result: GraphqlUser }) }),
  legacy: z.object({
    full_text: z.string(),
    created_at: z.string(),
    display_text_range: TextRange.optional(),
    entities: Entities,
    extended_entities: z.object({ media: z.array(Media) }).optional(),
  }),
});
export type GraphqlTweet = z.infer<typeof GraphqlTweet>;

const GraphqlResult = z.discriminatedUnion("__typename", [
  GraphqlTweet,
  // Posts with limited visibility wrap the tweet once more.
  z.object({ __typename: z.literal("TweetWithVisibilityResults"), tweet: GraphqlTweet }),
  z.object({
    __typename: z.literal("TweetTombstone"),
    tombstone: z.object({ text: z.object({ text: z.string() }) }).optional(),
  }),
  z.object({ __typename: z.literal("TweetUnavailable"), reason: z.string().optional() }),
]);

const TweetResultByRestIdAnswer = z.object({
  // A missing post is `{"data":{"tweetResult":{}}}`.
  data: z.object({ tweetResult: z.object({ result: GraphqlResult.optional() }) }),
});

/** A 200 answer of TweetResultByRestId as a tweet (its record and playlists); throws 404 for missing or hidden posts, 502 for a shape we do not know. */
export function graphqlAnswerToTweet(answer: unknown, id: string): XTweet {
  const parsed = TweetResultByRestIdAnswer.safeParse(answer);
  if (!parsed.success) {
    throw unknownAnswerShape(parsed.error);
  }
  const result = parsed.data.data.tweetResult.result;
  switch (result?.__typename) {
    case undefined:
      throw notFound(id);
    case "TweetTombstone":
      throw unavailable(id, result.tombstone?.text.text ?? null);
    case "TweetUnavailable":
      throw unavailable(id, result.reason ?? null);
    case "TweetWithVisibilityResults":
      return partsToXTweet(graphqlTweetParts(result.tweet));
    case "Tweet":
      return partsToXTweet(graphqlTweetParts(result));
  }
}

export const graphqlTweetToRecord = (tweet: GraphqlTweet): TweetRecord => partsToTweetRecord(graphqlTweetParts(tweet));

function graphqlTweetParts(tweet: GraphqlTweet): TweetParts {
  const user = tweet.core.user_results.result;
  return {
    id: tweet.rest_id,
    rawText: tweet.legacy.full_text,
    displayTextRange: tweet.legacy.display_text_range ?? null,
    urls: tweet.legacy.entities.urls ?? [],
    mediaLinks: (tweet.legacy.entities.media ?? []).map((m) => m.url),
    createdAt: parseLegacyDate(tweet.legacy.created_at),
    authorName: user.core?.name ?? user.legacy?.name ?? null,
    authorScreenName: user.core?.screen_name ?? user.legacy?.screen_name ?? null,
    authorAvatarUrl: user.avatar?.image_url ?? user.legacy?.profile_image_url_https ?? null,
    media: tweet.legacy.extended_entities?.media ?? [],
    articleTitle: null,
  };
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * `Tue Oct 01 19:59:18 +0000 2024`, parsed by hand: ECMAScript defines Date.parse only for the
 * ISO form, so what it does with this one depends on the engine (Node, Deno and Bun differ).
 */
export function parseLegacyDate(text: string): Date | null {
  const match = /^\w{3} (\w{3}) (\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2}) (\d{4})$/.exec(text);
  if (!match) return null;
  const [, mon, day, hh, mm, ss, sign, offH, offM, year] = match as unknown as string[];
  const month = months.indexOf(mon!);
  if (month < 0) return null;
  const offsetMinutes = (sign === "-" ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  const utc = Date.UTC(Number(year), month, Number(day), Number(hh), Number(mm), Number(ss));
  return new Date(utc - offsetMinutes * 60_000);
}
