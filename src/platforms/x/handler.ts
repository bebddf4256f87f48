// GET /api/v1/tweet?url=: the rich X record of docs/api.md, Tweet record.
import { json, type ApiHandler } from "../../http/context.ts";
import { requireUrlParam } from "../../http/params.ts";
import type { TweetSource } from "./source.ts";
import { parseStatusId } from "./url.ts";

export function tweetHandler(tweets: TweetSource): ApiHandler {
  return async ({ url }) => {
    const id = parseStatusId(requireUrlParam(url.searchParams).href);
    return json(await tweets.getTweet(id));
  };
}
