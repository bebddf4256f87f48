// Where tweet records come from: the syndication API first, X's GraphQL API (with a guest token)
// when syndication refuses, and X's GraphQL API as the operator's signed-in account (their
// cookie file) for posts both guest paths refuse (age-restricted, sensitive); with a short cache,
// one upstream call per burst of equal requests, and a backoff that answers 502 at once while an
// upstream keeps failing.
import { z } from "zod";
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import type { TweetRecord } from "../records.ts";
import { type Backoff, createBackoff } from "./backoff.ts";
import { isUpstreamFailure, notFound } from "./errors.ts";
import { graphqlAnswerToTweet } from "./graphql.ts";
import { sessionHeaders, type XSession } from "./session-cookies.ts";
import { syndicationAnswerToTweet } from "./syndication.ts";
import { syndicationToken } from "./token.ts";
import type { XTweet } from "./tweet-parts.ts";
import { cachedPosts, type CachedPostsOptions } from "../cached-posts.ts";
import type { Outbound } from "../../net/outbound.ts";

export interface GraphqlOptions {
  /** POST here with the bearer token to get a guest token. */
  guestActivateUrl: string;
  /** The TweetResultByRestId endpoint, query id included; X changes query ids now and then. */
  tweetResultUrl: string;
  /** The TweetDetail endpoint (a conversation; X answers it only to a signed-in account), query id included. */
  tweetDetailUrl: string;
  /** The UserByScreenName endpoint (an account by its handle), query id included. */
  userByScreenNameUrl: string;
  /** The UserTweets endpoint (an account's timeline; X answers it only to a signed-in account), query id included. */
  userTweetsUrl: string;
  /** The bearer token of X's public web client (the same for every visitor). */
  bearerToken: string;
}

export interface XClientOptions extends CachedPostsOptions {
  syndicationUrl: string;
  /** Fallback when syndication fails; null to use syndication only. */
  graphql: GraphqlOptions | null;
  /** First pause after an upstream failure; it doubles per further failure up to backoffMaxMs. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** The outbound client to X's APIs, whose timeout bounds each exchange. */
  outbound: Outbound;
  /** The operator's signed-in X session, read anew for every use; null when there is none. */
  session?: () => Promise<XSession | null>;
  /** Told which path answered a post that was not in the cache (metrics). */
  onAnswer?: (path: XClientPath) => void;
}

/** Which path gave a post: syndication, GraphQL as a guest, or GraphQL as the operator's account. */
export type XClientPath = "syndication" | "guest" | "cookies";

export interface TweetClient {
  /** `uncached` skips a kept answer (the platform check wants to know how X answers now). */
  getTweet(id: string, options?: { uncached?: boolean }): Promise<TweetRecord>;
  /** The tweet with its items' HLS playlists (a video's captions are there), from the same answer `getTweet` keeps. */
  getTweetPlaylists(id: string): Promise<XTweet>;
}

/** The tweet client, and what X's threads are read through (x/threads.ts). */
export interface XClient extends TweetClient {
  /**
   * A GraphQL operation's 200 answer, unread, asked as a guest or as the session's account when one
   * is given (threads read it); null when GraphQL is off.
   */
  graphql: GraphqlAsk | null;
  /** The operator's signed-in X session; null without one. */
  session(): Promise<XSession | null>;
}

export type GraphqlOperation = "TweetResultByRestId" | "TweetDetail" | "UserByScreenName" | "UserTweets";
export type GraphqlAsk = (operation: GraphqlOperation, variables: object, session?: XSession) => Promise<unknown>;

/**
 * The bearer token shipped in X's public web client JavaScript, the same for every visitor: it
 * identifies the client, not a user. The endpoints are in the configuration (src/config.ts).
 */
export const xWebClientBearerToken =
  "AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA";

/** X's answers are tens to hundreds of KB; the bound keeps one that never ends from filling memory. */
const maxAnswerBytes = 4 * 2 ** 20;

export function createXClient(options: XClientOptions): XClient {
  const now = options.now ?? Date.now;
  const { outbound } = options;
  const read = cachedPosts<XTweet>(options);
  const backoffOptions = { now, baseMs: options.backoffBaseMs ?? 1_000, maxMs: options.backoffMaxMs ?? 30_000 };
  const syndicationBackoff = createBackoff(backoffOptions);
  const graphql = options.graphql &&
    createGraphqlClient(options.graphql, outbound, createBackoff(backoffOptions));

  async function fromSyndication(id: string): Promise<XTweet> {
    const url = `${options.syndicationUrl.replace(/\/+$/, "")}/tweet-result?id=${id}&token=${
      syndicationToken(id)
    }&lang=en`;
    const answer = await outbound.json({ url: new URL(url), maxBytes: maxAnswerBytes });
    if (answer.status === 404) throw notFound(id);
    if (answer.status !== 200) throw upstreamFailed(`X answered with status ${answer.status}; try again later.`);
    return syndicationAnswerToTweet(answer.body, id);
  }

  async function asGuest(id: string): Promise<{ tweet: XTweet; path: XClientPath }> {
    try {
      return { tweet: await guarded(syndicationBackoff, () => fromSyndication(id)), path: "syndication" };
    } catch (error) {
      if (!graphql || !isUpstreamFailure(error)) throw error;
      return { tweet: await graphql.getTweet(id), path: "guest" };
    }
  }

  async function load(id: string): Promise<XTweet> {
    let answer: { tweet: XTweet; path: XClientPath };
    try {
      answer = await asGuest(id);
    } catch (error) {
      // X hides age-restricted and sensitive posts from guests; a signed-in account sees them.
      const refused = error instanceof ApiError && error.code === "post_unavailable";
      const session = refused && graphql ? await options.session?.() : null;
      if (!session || !graphql) throw error;
      answer = { tweet: await graphql.getTweet(id, session), path: "cookies" };
    }
    options.onAnswer?.(answer.path);
    return answer.tweet;
  }

  function tweet(id: string, uncached = false): Promise<XTweet> {
    // Ids reach upstream URLs, so only digits get that far.
    if (!/^\d{1,19}$/.test(id)) throw new ApiError("invalid_url", `"${id}" is not an X status id; ids are digits.`);
    return read(id, () => load(id), uncached);
  }

  return {
    getTweet: async (id, { uncached = false } = {}) => (await tweet(id, uncached)).record,
    getTweetPlaylists: (id) => tweet(id),
    graphql: graphql && graphql.ask,
    session: async () => (await options.session?.()) ?? null,
  };
}

/** Runs call unless backoff says the upstream is resting; a 502 from call counts as a failure. */
async function guarded<T>(backoff: Backoff, call: () => Promise<T>): Promise<T> {
  const waitMs = backoff.acquire();
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw upstreamFailed(`X is failing at the moment; try again in ${seconds} s.`, {
      headers: { "retry-after": String(seconds) },
    });
  }
  try {
    const value = await call();
    backoff.succeeded();
    return value;
  } catch (error) {
    if (isUpstreamFailure(error)) backoff.failed();
    else backoff.succeeded();
    throw error;
  }
}

const GuestActivation = z.object({ guest_token: z.string().min(1) });

// Fields and flags the web client sends; X rejects the query when a required flag is missing.
const graphqlVariables = { withCommunity: false, includePromotedContent: false, withVoice: false };
const tweetFeatures = {
  creator_subscriptions_tweet_preview_api_enabled: true,
  premium_content_api_read_enabled: false,
  communities_web_enable_tweet_community_results_fetch: true,
  c9s_tweet_anatomy_moderator_badge_enabled: true,
  articles_preview_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  view_counts_everywhere_api_enabled: true,
  longform_notetweets_consumption_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  tweet_awards_web_tipping_enabled: false,
  freedom_of_speech_not_reach_fetch_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  rweb_tipjar_consumption_enabled: true,
  verified_phone_label_enabled: false,
  responsive_web_graphql_exclude_directive_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_enhance_cards_enabled: false,
};
// An account's query wants flags of its own beside those (twscrape's user_by_login).
const userFeatures = {
  ...tweetFeatures,
  hidden_profile_subscriptions_enabled: true,
  highlights_tweets_tab_ui_enabled: true,
  subscriptions_verification_info_verified_since_enabled: true,
  subscriptions_verification_info_is_identity_verified_enabled: false,
  responsive_web_twitter_article_notes_tab_enabled: false,
  subscriptions_feature_can_gift_premium: false,
  profile_label_improvements_pcf_label_in_post_enabled: false,
};
const featuresOf: Record<GraphqlOperation, string> = {
  TweetResultByRestId: JSON.stringify(tweetFeatures),
  TweetDetail: JSON.stringify(tweetFeatures),
  UserByScreenName: JSON.stringify(userFeatures),
  UserTweets: JSON.stringify(tweetFeatures),
};

interface GraphqlClient {
  /** As a guest, or signed in as the session's account when one is given. */
  getTweet(id: string, session?: XSession): Promise<XTweet>;
  ask: GraphqlAsk;
}

function createGraphqlClient(
  options: GraphqlOptions,
  outbound: Outbound,
  backoff: Backoff,
): GraphqlClient {
  const authorization = `Bearer ${options.bearerToken}`;
  // One guest token serves many requests; concurrent callers share one activation.
  let guestToken: Promise<string> | null = null;

  async function activate(): Promise<string> {
    const answer = await outbound.json({
      url: new URL(options.guestActivateUrl),
      method: "POST",
      session: { authorization },
      maxBytes: maxAnswerBytes,
    });
    const parsed = GuestActivation.safeParse(answer.body);
    if (answer.status !== 200 || !parsed.success) {
      throw upstreamFailed(`X refused a guest token (status ${answer.status}); try again later.`);
    }
    return parsed.data.guest_token;
  }

  async function guestHeaders(): Promise<{ headers: Record<string, string>; spent: () => void }> {
    const pending = (guestToken ??= activate());
    pending.catch(() => {
      if (guestToken === pending) guestToken = null;
    });
    const token = await pending;
    // 401/403/429 mean the guest token is spent or expired; the next call activates a new one.
    const spent = () => {
      if (guestToken === pending) guestToken = null;
    };
    return { headers: { "x-guest-token": token }, spent };
  }

  const urls: Record<GraphqlOperation, string> = {
    TweetResultByRestId: options.tweetResultUrl,
    TweetDetail: options.tweetDetailUrl,
    UserByScreenName: options.userByScreenNameUrl,
    UserTweets: options.userTweetsUrl,
  };

  /** What X answers a session it will not serve (signed out, locked, limited). */
  const refusals = new Set([401, 403, 429]);

  async function ask(operation: GraphqlOperation, variables: object, session: XSession | undefined): Promise<unknown> {
    const { headers, spent } = session ? { headers: sessionHeaders(session), spent: () => {} } : await guestHeaders();
    const query = new URLSearchParams({ variables: JSON.stringify(variables), features: featuresOf[operation] });
    const answer = await outbound.json({
      url: new URL(`${urls[operation]}?${query}`),
      session: { authorization, ...headers },
      maxBytes: maxAnswerBytes,
    });
    if (answer.status !== 200) {
      spent();
      const cause = session
        ? new Error(
          `X refused the signed-in session of its cookie jar (COOKIES_DIR/x, COOKIES_FILE_X or COOKIES_FILE; status ${answer.status}); its cookies may have expired`,
        )
        : undefined;
      if (session && refusals.has(answer.status)) session.refused?.(`status ${answer.status}`);
      throw upstreamFailed(`X answered with status ${answer.status}; try again later.`, { cause });
    }
    return answer.body;
  }

  return {
    getTweet: (id, session) =>
      guarded(
        backoff,
        async () =>
          graphqlAnswerToTweet(await ask("TweetResultByRestId", { tweetId: id, ...graphqlVariables }, session), id),
      ),
    ask: (operation, variables, session) => guarded(backoff, () => ask(operation, variables, session)),
  };
}
