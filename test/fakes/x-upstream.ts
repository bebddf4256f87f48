// A local stand-in for X's tweet APIs, serving the recorded answers in test/fixtures/upstream.
// Routes (one base URL for all):
//   GET  /tweet-result?id=<id>&token=<t>        syndication: the recorded body for <id>, else 404
//   POST /1.1/guest/activate.json               {"guest_token": "guest-<n>"}
//   GET  /graphql/<query id>/TweetResultByRestId?variables={"tweetId":...}
//        the recorded GraphQL body for <id>, else {"data":{"tweetResult":{}}}; 403 without a live guest token
//        or the signed-in session `xSession` (cookies auth_token and ct0, x-csrf-token = ct0); a tweet
//        of a recorded conversation has its recorded object as its answer
//   GET  /graphql/<query id>/TweetDetail?variables={"focalTweetId":...}
//        the recorded conversation of <id> (or that shows <id>) to the signed-in session, else an
//        empty one; 403 to a guest
//   GET  /graphql/<query id>/UserByScreenName?variables={"screen_name":...}
//        the recorded account of @XDevelopers to the signed-in session, else `{"data":{}}`; 403 to a guest
//   GET  /graphql/<query id>/UserTweets?variables={"userId":...,"cursor":...}
//        @XDevelopers' timeline to the signed-in session, 403 to a guest: the recorded page first, then
//        the same page with its tweets made older (timelinePages), then a page of cursors alone, its end
// The age-restricted post (fakeTweetIds.ageRestricted) is refused to guests the way X refuses
// them: a tombstone from syndication, TweetUnavailable "NsfwLoggedOut" from GraphQL; the
// signed-in session gets the recorded video post.
// Every route can be switched to a failure mode, and every request is counted by path.
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { GraphqlOptions } from "../../src/platforms/x/client.ts";
import { captionPlaylists } from "./x-video-host.ts";

/** The recorded upstream answers (their sources are in its PROVENANCE.md). */
export const fixturesDir = fileURLToPath(new URL("../fixtures/upstream/", import.meta.url));

/** Ids that the recorded answers do not carry, given to the bodies that have none. */
export const fakeTweetIds = {
  deleted: "1000000000000000001",
  suspended: "1000000000000000002",
  /** Syndication answers `{}` with status 200. */
  empty: "1000000000000000003",
  /** No answer recorded: syndication 404, GraphQL an empty tweetResult. */
  unknown: "1000000000000000009",
  /** Shown only to a signed-in account: the recorded video post (id 1841206275088290279). */
  ageRestricted: "1000000000000000004",
  /** A photo, a video and a photo (mixedMediaPost), files of the fake CDN. */
  mixedMedia: "1000000000000000005",
  /** The NASA video post whose HLS master has English and Spanish captions (test/fakes/x-video-host.ts). */
  captionsInTwoLanguages: "1000000000000000006",
  /** The NASA video post whose captions' segment is on an address no reader may reach. */
  captionsOffHost: "1000000000000000007",
} as const;

/**
 * The id of the `n`th of as many numbered posts as a test wants (jobs of hundreds of links): each
 * is the recorded NASA video post under its own id, so no two share an answer or a cache entry.
 */
export const numberedPostId = (n: number): string => String(7_000_000_000_000_000_000n + BigInt(n));
const isNumberedPost = (id: string) => /^7[0-9]{18}$/.test(id);

/** The signed-in session the fake accepts, as a cookie file holds it. */
export const xSession = { authToken: "fake-auth-token-5b1c", ct0: "fake-ct0-93ad" } as const;

const ageRestrictedTombstone = {
  __typename: "TweetTombstone",
  tombstone: {
    text: {
      text:
        "Age-restricted adult content. This content might not be appropriate for people under 18 years old. To view this media, you\u2019ll need to log in to X. Learn more",
      entities: [],
    },
  },
};

const forbidden = { status: 403, body: JSON.stringify({ errors: [{ code: 200, message: "Forbidden." }] }) };

function signedIn(req: IncomingMessage): boolean {
  const cookies = String(req.headers.cookie ?? "").split(/;\s*/);
  return cookies.includes(`auth_token=${xSession.authToken}`) && cookies.includes(`ct0=${xSession.ct0}`) &&
    req.headers["x-csrf-token"] === xSession.ct0;
}

/** Sizes of the fake CDN files the mixed-media post names, in X's order; the hosts are X's. */
export const mixedMediaFiles = [
  { type: "photo", size: 1000, url: "https://pbs.twimg.com/file/1000/first.jpg?type=image/jpeg" },
  { type: "video", size: 3000, url: "https://video.twimg.com/file/3000/vid/1280x720/clip.mp4" },
  { type: "photo", size: 2000, url: "https://pbs.twimg.com/file/2000/second.jpg?type=image/jpeg" },
] as const;

/**
 * X's mixed media (photos and a video in one post) is not among the recorded answers, so it is
 * made from the recorded NASA video post: its video between two photos.
 */
function mixedMediaPost(nasaVideoPost: string): string {
  const post = JSON.parse(nasaVideoPost);
  const [photo1, video, photo2] = mixedMediaFiles;
  const photo = (url: string) => ({ type: "photo", media_url_https: url, original_info: { width: 1200, height: 800 } });
  const nasaVideo = post.mediaDetails[0];
  nasaVideo.video_info.variants = [
    { content_type: "application/x-mpegURL", url: "https://video.twimg.com/file/10/pl/playlist.m3u8" },
    { bitrate: 2176000, content_type: "video/mp4", url: video.url },
  ];
  return JSON.stringify({
    ...post,
    id_str: fakeTweetIds.mixedMedia,
    mediaDetails: [photo(photo1.url), nasaVideo, photo(photo2.url)],
  });
}

/** The recorded NASA video post under the id `id`, its HLS master at `playlist` (a file of the fake video host). */
function withPlaylist(nasaVideoPost: string, id: string, playlist: string): string {
  const post = JSON.parse(nasaVideoPost);
  const hls = post.mediaDetails[0].video_info.variants.find((v: any) => v.content_type === "application/x-mpegURL");
  hls.url = playlist;
  return JSON.stringify({ ...post, id_str: id });
}

/** The recorded post `recorded` under the id `id`. */
function numberedPost(recorded: string, id: string): string {
  return JSON.stringify({ ...JSON.parse(recorded), id_str: id });
}

export type FakeRoute = "syndication" | "activate" | "graphql" | "detail" | "user" | "timeline";

export type FakeMode =
  | { kind: "normal" }
  /** Answer every request with this status and a short text body. */
  | { kind: "status"; status: number }
  /** Answer normally, but only after this many ms. */
  | { kind: "delay"; ms: number }
  /** 200 with a body that is not JSON. */
  | { kind: "malformed" }
  /** 200 with this JSON body, whatever the id. */
  | { kind: "json"; body: unknown }
  /** Drop the connection without an answer. */
  | { kind: "reset" }
  /** 302 to this location. */
  | { kind: "redirect"; location: string };

export interface FakeXUpstream {
  /** Base URL, for example http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  /** The options createXClient needs to use this fake for both upstreams. */
  syndicationUrl: string;
  graphql: GraphqlOptions;
  /** Requests seen on this path (e.g. "/tweet-result"), or on all paths when none is given. */
  calls(path?: string): number;
  setMode(route: FakeRoute, mode: FakeMode): void;
  /** Makes every guest token issued so far invalid, as X does when they expire. */
  revokeGuestTokens(): void;
  close(): Promise<void>;
}

const tweetResultPath = "/graphql/fakeQueryId/TweetResultByRestId";
const tweetDetailPath = "/graphql/fakeDetailQueryId/TweetDetail";
const userPath = "/graphql/fakeUserQueryId/UserByScreenName";
const timelinePath = "/graphql/fakeTimelineQueryId/UserTweets";

/** The query ids of the fake's paths, as the service's settings name them. */
export const fakeQueryIds = {
  X_GRAPHQL_QUERY_ID: "fakeQueryId",
  X_TWEET_DETAIL_QUERY_ID: "fakeDetailQueryId",
  X_USER_BY_SCREEN_NAME_QUERY_ID: "fakeUserQueryId",
  X_USER_TWEETS_QUERY_ID: "fakeTimelineQueryId",
} as const;

/** The account whose timeline is recorded. */
export const timelineAccount = { handle: "XDevelopers", id: "2244994945" } as const;
const olderPageNext = "fake-cursor-after-older-page";
const endNext = "fake-cursor-end";

/** The timeline's instructions of a UserTweets answer. */
const timelineOf = (answer: any): any[] => answer.data.user.result.timeline.timeline.instructions;

/**
 * The timeline's pages by the cursor that asks for them (the first by none): the recorded page; then the same page
 * with each of its tweets' ids (and every mention of them) 2 * 10^16 lower, so older than the recorded page's oldest
 * (X's ids grow with time), without the pinned tweet (X sends it on the first page only); then X's last page, its
 * cursors alone.
 */
function timelinePages(): Map<string | null, string> {
  const recorded = readFileSync(path.join(fixturesDir, "graphql", "UserTweets_XDevelopers_2244994945.json"), "utf8");
  const answer = JSON.parse(recorded);
  const instructions = timelineOf(answer);
  const next = instructions.flatMap((i) => i.entries ?? []).find((e: any) => e.content.cursorType === "Bottom")
    .content.value as string;
  const unpinned = instructions.filter((i) => i.type !== "TimelinePinEntry");
  let older = JSON.stringify({
    data: { user: { result: { ...answer.data.user.result, timeline: { timeline: { instructions: unpinned } } } } },
  })
    .replace(next, olderPageNext);
  for (const tweet of instructionTweets(unpinned)) {
    older = older.replaceAll(tweet.rest_id, String(BigInt(tweet.rest_id) - 20_000_000_000_000_000n));
  }
  const cursors = ["Top", "Bottom"].map((cursorType) => ({
    entryId: `cursor-${cursorType.toLowerCase()}-2085474396218064000`,
    sortIndex: "2085474396218064000",
    content: { entryType: "TimelineTimelineCursor", __typename: "TimelineTimelineCursor", cursorType, value: endNext },
  }));
  const last = { type: "TimelineAddEntries", entries: cursors };
  const end = { data: { user: { result: { __typename: "User", timeline: { timeline: { instructions: [last] } } } } } };
  return new Map([[null, recorded], [next, older], [olderPageNext, JSON.stringify(end)], [
    endNext,
    JSON.stringify(end),
  ]]);
}

function readFixtures(dir: string, idOf: (file: string) => string | undefined): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const file of readdirSync(path.join(fixturesDir, dir))) {
    const id = idOf(file);
    if (id) bodies.set(id, readFileSync(path.join(fixturesDir, dir, file), "utf8"));
  }
  return bodies;
}

function loadSyndicationBodies(): Map<string, string> {
  const bodies = readFixtures("syndication", (file) => /_(\d+)(?:_\w+)?\.json$/.exec(file)?.[1]);
  const read = (file: string) => readFileSync(path.join(fixturesDir, "syndication", file), "utf8");
  bodies.set(fakeTweetIds.deleted, read("tombstone_deleted_by_author.json"));
  bodies.set(fakeTweetIds.suspended, read("tombstone_suspended.json"));
  bodies.set(fakeTweetIds.empty, "{}");
  bodies.set(fakeTweetIds.ageRestricted, JSON.stringify(ageRestrictedTombstone));
  const nasaVideoPost = read("video_nasa_1491475671058681863.json");
  bodies.set(fakeTweetIds.mixedMedia, mixedMediaPost(nasaVideoPost));
  const captioned = [
    [fakeTweetIds.captionsInTwoLanguages, captionPlaylists.twoLanguages],
    [fakeTweetIds.captionsOffHost, captionPlaylists.offHost],
  ] as const;
  for (const [id, playlist] of captioned) bodies.set(id, withPlaylist(nasaVideoPost, id, playlist));
  return bodies;
}

/** The recorded conversations by focal tweet, and by each tweet they show that has none of its own. */
function loadDetailBodies(): Map<string, string> {
  const bodies = readFixtures("graphql", (file) => /^TweetDetail_.*_(\d+)\.json$/.exec(file)?.[1]);
  for (const body of [...bodies.values()]) {
    for (const tweet of conversationTweets(body)) if (!bodies.has(tweet.rest_id)) bodies.set(tweet.rest_id, body);
  }
  return bodies;
}

/** The tweet objects of a TweetDetail answer, plain or wrapped once more for limited visibility. */
function conversationTweets(body: string): { rest_id: string }[] {
  return instructionTweets(JSON.parse(body).data.threaded_conversation_with_injections_v2.instructions);
}

/** The tweet objects of a conversation's or a timeline's instructions: of their entries, modules and pinned entry. */
function instructionTweets(instructions: any[]): { rest_id: string }[] {
  const entries = instructions.flatMap((i) => [...(i.entries ?? []), ...(i.entry ? [i.entry] : [])]);
  const contents = entries.flatMap((entry) => [
    entry.content.itemContent,
    ...(entry.content.items ?? []).map((module: any) => module.item.itemContent),
  ]);
  return contents.map((content) => content?.tweet_results?.result).filter((tweet) => tweet?.rest_id !== undefined);
}

function loadGraphqlBodies(details: Map<string, string>, timeline: Map<string | null, string>): Map<string, string> {
  const bodies = readFixtures("graphql", (file) => /^TweetResultByRestId_.*_(\d+)\.json$/.exec(file)?.[1]);
  const timelineTweets = [...timeline.values()].flatMap((page) => instructionTweets(timelineOf(JSON.parse(page))));
  for (const tweet of [...[...details.values()].flatMap(conversationTweets), ...timelineTweets]) {
    if (!bodies.has(tweet.rest_id)) {
      bodies.set(tweet.rest_id, JSON.stringify({ data: { tweetResult: { result: tweet } } }));
    }
  }
  return bodies;
}

export async function startFakeXUpstream(): Promise<FakeXUpstream> {
  const syndication = loadSyndicationBodies();
  const detailBodies = loadDetailBodies();
  const timeline = timelinePages();
  const graphqlBodies = loadGraphqlBodies(detailBodies, timeline);
  const recordedUser = readFileSync(
    path.join(fixturesDir, "graphql", "UserByScreenName_XDevelopers_2244994945.json"),
    "utf8",
  );
  const counts = new Map<string, number>();
  const modes: Record<FakeRoute, FakeMode> = {
    syndication: { kind: "normal" },
    activate: { kind: "normal" },
    graphql: { kind: "normal" },
    detail: { kind: "normal" },
    user: { kind: "normal" },
    timeline: { kind: "normal" },
  };
  let issuedTokens = 0;
  const liveTokens = new Set<string>();

  function normalAnswer(route: FakeRoute, url: URL, req: IncomingMessage): { status: number; body: string } {
    switch (route) {
      case "syndication": {
        const id = url.searchParams.get("id") ?? "";
        const body = syndication.get(id) ??
          (isNumberedPost(id) ? numberedPost(syndication.get("1491475671058681863")!, id) : undefined);
        return body ? { status: 200, body } : { status: 404, body: "" };
      }
      case "activate": {
        const token = `guest-${++issuedTokens}`;
        liveTokens.add(token);
        return { status: 200, body: JSON.stringify({ guest_token: token }) };
      }
      case "graphql": {
        const session = signedIn(req);
        if (!session && !liveTokens.has(String(req.headers["x-guest-token"]))) {
          return { status: 403, body: JSON.stringify({ errors: [{ code: 239, message: "Bad guest token." }] }) };
        }
        const variables = JSON.parse(url.searchParams.get("variables") ?? "{}") as { tweetId?: string };
        if (variables.tweetId === fakeTweetIds.ageRestricted) {
          const body = session ? graphqlBodies.get("1841206275088290279")! : JSON.stringify({
            data: { tweetResult: { result: { __typename: "TweetUnavailable", reason: "NsfwLoggedOut" } } },
          });
          return { status: 200, body };
        }
        const body = graphqlBodies.get(variables.tweetId ?? "") ?? JSON.stringify({ data: { tweetResult: {} } });
        return { status: 200, body };
      }
      case "user":
      case "timeline": {
        // X answers a profile's account and timeline only to a signed-in account.
        if (!signedIn(req)) return forbidden;
        const variables = JSON.parse(url.searchParams.get("variables") ?? "{}");
        if (route === "user") {
          const known = String(variables.screen_name).toLowerCase() === timelineAccount.handle.toLowerCase();
          return { status: 200, body: known ? recordedUser : JSON.stringify({ data: {} }) };
        }
        const page = variables.userId === timelineAccount.id ? timeline.get(variables.cursor ?? null) : undefined;
        return { status: 200, body: page ?? JSON.stringify({ data: { user: { result: { __typename: "User" } } } }) };
      }
      case "detail": {
        // X answers a conversation only to a signed-in account.
        if (!signedIn(req)) return forbidden;
        const variables = JSON.parse(url.searchParams.get("variables") ?? "{}") as { focalTweetId?: string };
        const body = detailBodies.get(variables.focalTweetId ?? "") ??
          JSON.stringify({ data: { threaded_conversation_with_injections_v2: { instructions: [] } } });
        return { status: 200, body };
      }
    }
  }

  function routeOf(req: IncomingMessage, url: URL): FakeRoute | null {
    if (req.method === "GET" && url.pathname === "/tweet-result") return "syndication";
    if (req.method === "POST" && url.pathname === "/1.1/guest/activate.json") return "activate";
    if (req.method === "GET" && url.pathname === tweetResultPath) return "graphql";
    if (req.method === "GET" && url.pathname === tweetDetailPath) return "detail";
    if (req.method === "GET" && url.pathname === userPath) return "user";
    if (req.method === "GET" && url.pathname === timelinePath) return "timeline";
    return null;
  }

  function send(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
    // Drain the request body so the connection can be reused.
    req.resume();
    const route = routeOf(req, url);
    if (!route) return send(res, 404, "");
    const mode = modes[route];
    switch (mode.kind) {
      case "status":
        return res.writeHead(mode.status, { "content-type": "text/plain" }).end(`fake ${mode.status}`);
      case "malformed":
        return send(res, 200, '{"__typename":"Tweet","id_str":');
      case "json":
        return send(res, 200, JSON.stringify(mode.body));
      case "reset":
        return req.socket.destroy();
      case "redirect":
        return res.writeHead(302, { location: mode.location }).end();
      case "delay": {
        const timer = setTimeout(() => {
          const answer = normalAnswer(route, url, req);
          if (!res.destroyed) send(res, answer.status, answer.body);
        }, mode.ms);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      case "normal": {
        const answer = normalAnswer(route, url, req);
        return send(res, answer.status, answer.body);
      }
    }
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    syndicationUrl: base,
    graphql: {
      guestActivateUrl: `${base}/1.1/guest/activate.json`,
      tweetResultUrl: `${base}${tweetResultPath}`,
      tweetDetailUrl: `${base}${tweetDetailPath}`,
      userByScreenNameUrl: `${base}${userPath}`,
      userTweetsUrl: `${base}${timelinePath}`,
      bearerToken: "fake-bearer",
    },
    calls: (pathname) =>
      pathname === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(pathname) ?? 0),
    setMode: (route, mode) => {
      modes[route] = mode;
    },
    revokeGuestTokens: () => liveTokens.clear(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
