// GET /api/v1/tweet?url=: the rich X record of docs/api.md, Tweet record.
import { withDownloadUrls } from "../operations/download-links.ts";
import type { ApiHandler } from "../auth/api-context.ts";
import { json } from "../http/json-response.ts";
import { parseQuery, TweetQuery } from "../http/query.ts";
import type { TweetClient } from "../platforms/x/client.ts";
import { parseStatusId } from "../platforms/x/url.ts";

export function tweetHandler(tweets: TweetClient): ApiHandler {
  return async ({ url, links }) => {
    const id = parseStatusId(parseQuery(TweetQuery, url.searchParams).url.href);
    return json(await withDownloadUrls(await tweets.getTweet(id), links));
  };
}
