// The settings of X's client (x/client.ts, x/graphql.ts, x/timeline.ts): where X's APIs are, the query ids X changes
// now and then, the bound on each call and the tweets' cache. config.ts merges them into the service's.
import { z } from "zod";
import { httpUrl, positiveInt } from "../../util/settings.ts";

export const xSettings = {
  X_SYNDICATION_URL: httpUrl.default("https://cdn.syndication.twimg.com").describe("Base URL of X's syndication API"),
  X_GRAPHQL_URL: z
    .union([z.literal("off"), httpUrl])
    .default("https://api.x.com")
    .describe("Base URL of X's API for the GraphQL fallback (guest token), or `off`"),
  X_GRAPHQL_QUERY_ID: z.string().regex(/^[\w-]+$/).default("2ICDjqPd81tulZcYrtpTuQ").describe(
    "Query id of TweetResultByRestId; X changes it now and then",
  ),
  X_TWEET_DETAIL_QUERY_ID: z.string().regex(/^[\w-]+$/).default("559hs_YZNV4IgA3Z6zIIuw").describe(
    "Query id of TweetDetail, which a job reads an X thread with (signed in); X changes it now and then",
  ),
  X_USER_BY_SCREEN_NAME_QUERY_ID: z.string().regex(/^[\w-]+$/).default("Gb-d6r0vxPOADdG62OEBpQ").describe(
    "Query id of UserByScreenName, which a job reads an X profile's account with (signed in); X changes it now and then",
  ),
  X_USER_TWEETS_QUERY_ID: z.string().regex(/^[\w-]+$/).default("eoJ5zbv51Z_KVl81v9PmLQ").describe(
    "Query id of UserTweets, which a job reads an X profile's posts with (signed in); X changes it now and then",
  ),
  X_TIMEOUT_MS: positiveInt.default(8000).describe("Bound on each call to X's APIs, body included"),
  X_CACHE_TTL_S: z.coerce.number().int().min(0).default(60).describe("How long tweet answers are cached, in seconds"),
  X_CACHE_MAX_ENTRIES: positiveInt.default(5000).describe("How many tweet answers the cache holds at most"),
};
