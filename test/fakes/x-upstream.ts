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
// The age-restricted post (fakeTweetIds.ageRestricted) is refused to guests the way X refuses
// them: a tombstone from syndication, TweetUnavailable "NsfwLoggedOut" from GraphQL; the
// signed-in session gets the recorded video post.
// Every route can be switched to a failure mode, and every request is counted by path.
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

/** The recorded post `recorded` under the id `id`. */
function numberedPost(recorded: string, id: string): string {
  return JSON.stringify({ ...JSON.parse(recorded), id_str: id });
}

export type FakeRoute = "syndication" | "activate" | "graphql" | "detail";

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
  /** The options createTweetSource needs to use this fake for both upstreams. */
  syndicationUrl: string;
  graphql: { guestActivateUrl: string; tweetResultUrl: string; tweetDetailUrl: string; bearerToken: string };
  /** Requests seen on this path (e.g. "/tweet-result"), or on all paths when none is given. */
  calls(path?: string): number;
  setMode(route: FakeRoute, mode: FakeMode): void;
  /** Makes every guest token issued so far invalid, as X does when they expire. */
  revokeGuestTokens(): void;
  close(): Promise<void>;
}

const tweetResultPath = "/graphql/fakeQueryId/TweetResultByRestId";
const tweetDetailPath = "/graphql/fakeDetailQueryId/TweetDetail";

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
  bodies.set(fakeTweetIds.mixedMedia, mixedMediaPost(read("video_nasa_1491475671058681863.json")));
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
  const instructions = JSON.parse(body).data.threaded_conversation_with_injections_v2.instructions as any[];
  const contents = instructions.flatMap((i) => i.entries ?? []).flatMap((entry) => [
    entry.content.itemContent,
    ...(entry.content.items ?? []).map((module: any) => module.item.itemContent),
  ]);
  return contents.map((content) => content?.tweet_results?.result).filter((tweet) => tweet?.rest_id !== undefined);
}

function loadGraphqlBodies(details: Map<string, string>): Map<string, string> {
  const bodies = readFixtures("graphql", (file) => /^TweetResultByRestId_.*_(\d+)\.json$/.exec(file)?.[1]);
  for (const tweet of [...details.values()].flatMap(conversationTweets)) {
    if (!bodies.has(tweet.rest_id)) {
      bodies.set(tweet.rest_id, JSON.stringify({ data: { tweetResult: { result: tweet } } }));
    }
  }
  return bodies;
}

export async function startFakeXUpstream(): Promise<FakeXUpstream> {
  const syndication = loadSyndicationBodies();
  const detailBodies = loadDetailBodies();
  const graphqlBodies = loadGraphqlBodies(detailBodies);
  const counts = new Map<string, number>();
  const modes: Record<FakeRoute, FakeMode> = {
    syndication: { kind: "normal" },
    activate: { kind: "normal" },
    graphql: { kind: "normal" },
    detail: { kind: "normal" },
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
      case "detail": {
        // X answers a conversation only to a signed-in account.
        if (!signedIn(req)) {
          return { status: 403, body: JSON.stringify({ errors: [{ code: 200, message: "Forbidden." }] }) };
        }
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
