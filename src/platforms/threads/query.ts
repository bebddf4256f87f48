// The web client's query for a post, asked when the post's page does not preload it, as FxEmbed
// reads Threads logged out: the page's LSD token and `csrftoken` cookie, and a form POSTed to
// /graphql/query with the query's id (`doc_id`, THREADS_QUERY_ID: Threads changes it) and the app
// id header; the answer is the same `{data: {data: {edges}}}` the page preloads. Pure.

/** The web client's app id, the same for every visitor (FxEmbed's, yt-dlp's and SmudgeLord's readers send it). */
const appId = "238260118697367";
const shortcodeDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/**
 * The web client's Relay providers a logged-out visitor's query carries: FxEmbed's THREADS_RELAY_DEFAULTS
 * that are true, and false ones yt-dlp's pull request #16406 sends.
 */
const relayProviders: Record<string, boolean> = {
  IsLoggedIn: false,
  HasDearAlgoConsumption: true,
  HasCommunities: true,
  HasGameScoreShare: true,
  HasPublicViewCountCard: true,
  OptionalCookiesEnabled: true,
  HasEventBadge: false,
  IsSearchDiscoveryEnabled: false,
  HasMusic: false,
  IsCrawler: false,
  HasDisplayNames: false,
  CanSeeSponsoredContent: false,
  IsInternalUser: false,
};

/** The post's numeric id: its shortcode read as base 64 over A-Za-z0-9-_ (Meta's rule). */
export function postIdOf(code: string): string {
  let id = 0n;
  for (const digit of code) id = id * 64n + BigInt(shortcodeDigits.indexOf(digit));
  return id.toString();
}

/** The page's LSD token (`["LSD",[],{"token":"..."}`), or null when it has none. */
export function lsdOf(html: string): string | null {
  return /\["LSD",\[\],\{"token":"([\w-]{1,200})"/.exec(html)?.[1] ?? null;
}

/** The cookie header of the `Set-Cookie`s a page answered with (name=value of each). */
export function cookiesOf(setCookies: readonly string[]): string {
  return setCookies.map((line) => line.split(";", 1)[0]!.trim()).filter((pair) => pair.includes("=")).join("; ");
}

/** The `csrftoken` of a cookie header, or null. */
export function csrfTokenOf(cookie: string): string | null {
  return /(?:^|;\s*)csrftoken=([^;]+)/.exec(cookie)?.[1] ?? null;
}

/** The form and the headers of the post's query; `session` holds what only threads.com may see. */
export function postQuery(
  code: string,
  access: { lsd: string; cookie: string; queryId: string },
): { body: string; headers: Record<string, string>; session: Record<string, string> } {
  const variables: Record<string, unknown> = { postID: postIdOf(code), sort_order: "TOP" };
  for (const [name, value] of Object.entries(relayProviders)) {
    variables[`__relay_internal__pv__Barcelona${name}relayprovider`] = value;
  }
  const body = new URLSearchParams({
    lsd: access.lsd,
    doc_id: access.queryId,
    fb_api_req_friendly_name: "BarcelonaPostPageDirectQuery",
    fb_api_caller_class: "RelayModern",
    server_timestamps: "true",
    variables: JSON.stringify(variables),
  }).toString();
  const csrf = csrfTokenOf(access.cookie);
  return {
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: "https://www.threads.com",
      referer: "https://www.threads.com/",
      "x-ig-app-id": appId,
      "x-fb-friendly-name": "BarcelonaPostPageDirectQuery",
    },
    session: {
      "x-fb-lsd": access.lsd,
      ...(access.cookie === "" ? {} : { cookie: access.cookie }),
      ...(csrf === null ? {} : { "x-csrftoken": csrf }),
    },
  };
}
