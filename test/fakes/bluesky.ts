// A local Bluesky on 127.0.0.1: the public AppView's three calls the service makes, the image CDN
// (cdn.bsky.app) and the video host (video.bsky.app), one server for all three. Point
// BLUESKY_APPVIEW_URL at `origin` and map the two media hosts to it with ORIGIN_OVERRIDES.
//
// The AppView answers from the real recordings in test/fixtures/upstream/bluesky/: the recorded
// getPostThread answers as they are (with the replies below the `depth` asked for left out, as the
// AppView leaves them out), a reply inside them as its own subtree (the thread the AppView gives
// for it, less the parents this service does not ask for), and each post of the recorded author feed in the thread
// shape getPostThread gives it (the same post view); the recorded author feed itself, a page at a time
// (`authorFeedPage`). The video post is the quoted post of feed
// item 29, its recorded view's `embeds[0]` as its own `embed` (the shape a post's own video embed
// has). A post it does not know is the AppView's 400 NotFound; `blockedRkey` is a blocked post.
// The captioned video post is that post under another rkey, its record's video embed carrying an
// English caption file as `app.bsky.embed.video#caption` gives one (`{lang, file: blob}`, the blob
// `text/vtt`); the server also answers as the PLC directory (`/<did>`: a DID document naming
// `pdsHost` as the account's PDS) and as that PDS (`com.atproto.sync.getBlob` of the caption's CID).
// The video host serves a master playlist naming two streams, 360p (small) first, as Bluesky's
// does, each an HLS VOD of MPEG-TS segments (H.264 and AAC) made by ffmpeg at start-up.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createHash } from "node:crypto";
import { fakeBytes } from "./cdn.ts";

const fixtures = path.join(import.meta.dirname, "../fixtures/upstream/bluesky");
/** A post view as the AppView shows it; the fake reads only these fields of it. */
type PostView = Record<string, any> & { uri: string; author: { did: string; handle: string } };
const fixture = (name: string): Record<string, any> => JSON.parse(readFileSync(path.join(fixtures, name), "utf8"));

export const feed = fixture("getAuthorFeed__quoted-video_recordWithMedia_external_notFoundPost__bskyr__chriskenny.json")
  .feed as { post: PostView }[];
export const imagesThread: { thread: { post: PostView } } = <never> fixture(
  "getPostThread__images__bskyr__soubhikbarari_3k7qmjev5lr2s.json",
);
export const cardThread: { thread: { post: PostView } } = <never> fixture(
  "getPostThread__external-card_root_with_replies__atrrr__jbgruber_3kbi55xm6u62v.json",
);
/** The third post of cardThread's chain, opened in its middle. */
export const parentChainThread: { thread: { post: PostView } } = <never> fixture(
  "getPostThread__reply_parent-chain_images-reply__atrrr__jbgruber_3kbi57u4sys2l.json",
);
export const quotes = fixture("getQuotes__recordWithMedia-external_quote__bskyr__bskyr_3lc5c5qv72r2w.json")
  .posts as PostView[];

/** The recorded feed's profile: the author of its posts that are no reposts. */
export const feedAuthor: { did: string; handle: string } = feed[0]!.post.author;

type FeedItem = { post: PostView; reply?: { root: Record<string, any>; parent: Record<string, any> }; reason?: any };
/** Where an item sits in the feed: the time of the repost, else of the post (the AppView's cursor is this time). */
const sortedAt = (item: FeedItem): string => item.reason?.indexedAt ?? item.post.indexedAt;
/** posts_and_author_threads: the profile's posts and reposts, and only those replies whose thread is all the author's. */
const inAuthorThreads = (item: FeedItem) =>
  item.reply === undefined ||
  (item.reply.root.author?.did === feedAuthor.did && item.reply.parent.author?.did === feedAuthor.did);

/**
 * A page of the recorded author feed as getAuthorFeed gives it: `filter` applied, `limit` items after the `cursor`
 * time, and the time of the page's last item as the next cursor. The recording is the profile's first 50 items, so
 * here the profile ends with them: a page past them is empty, with no cursor, as the AppView ends a feed.
 */
export function authorFeedPage(filter: string | null, cursor: string | null, limit: number) {
  const items = (feed as FeedItem[]).filter((item) => filter !== "posts_and_author_threads" || inAuthorThreads(item));
  const start = cursor === null ? 0 : items.findIndex((item) => sortedAt(item) < cursor);
  const page = start === -1 ? [] : items.slice(start, start + limit);
  return page.length === 0 ? { feed: [] } : { feed: page, cursor: sortedAt(page.at(-1)!) };
}

/** A post view in the thread shape of getPostThread. */
export const asThread = (post: PostView) => ({
  thread: { $type: "app.bsky.feed.defs#threadViewPost", post, replies: [] },
});

/** Feed item 29: a post quoting a video post. */
export const quoteOfVideo = feed[28]!.post;
const quotedVideo = quoteOfVideo.embed.record;
/** The quoted video post, as getPostThread shows it. */
export const videoPost: PostView = {
  uri: quotedVideo.uri,
  cid: quotedVideo.cid,
  author: quotedVideo.author,
  record: quotedVideo.value,
  embed: quotedVideo.embeds[0],
  indexedAt: quotedVideo.indexedAt,
};

/** The English caption file of the captioned video post (WebVTT, as a caption blob holds it). */
export const captionVtt =
  "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nA carousel of package logos\n\n00:00:01.500 --> 00:00:04.000\nall of them hexagonal\n";

/** The CID of a blob: CIDv1, raw codec, SHA-256, in base32 (`b...`), as a repository names its blobs. */
function blobCid(bytes: string): string {
  const cid = Buffer.concat([Buffer.from([0x01, 0x55, 0x12, 0x20]), createHash("sha256").update(bytes).digest()]);
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let bits = "";
  for (const byte of cid) bits += byte.toString(2).padStart(8, "0");
  return `b${(bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, "0"), 2)]).join("")}`;
}

export const captionCid = blobCid(captionVtt);
/** The PDS the fake's DID documents name, in the form of Bluesky's own PDS hosts (made up); map it to the fake. */
export const pdsHost = "amanita.us-east.host.bsky.network";

/** The video post with an English caption file in its record's video embed, under a made-up rkey. */
export const captionedVideoPost: PostView = {
  ...videoPost,
  uri: videoPost.uri.replace(/[^/]+$/, "3lcaptioned2c"),
  record: {
    ...videoPost.record,
    embed: {
      ...videoPost.record.embed,
      captions: [{
        lang: "en",
        file: { $type: "blob", ref: { $link: captionCid }, mimeType: "text/vtt", size: captionVtt.length },
      }],
    },
  },
};

/** The link of a post view on bsky.app. */
export const linkOf = (post: { uri: string; author: { handle: string } }) =>
  `https://bsky.app/profile/${post.author.handle}/post/${post.uri.split("/").pop()}`;

export const blockedRkey = "3lblockedpost2";
/** Picture sizes of the two streams of every video, smallest first as the master lists them. */
export const streams = [{ name: "360p", width: 160, height: 90, bandwidth: 300_000 }, {
  name: "720p",
  width: 480,
  height: 270,
  bandwidth: 1_500_000,
}];
/** Bytes of every image file on the fake CDN (the same for each). */
export const imageBytes = fakeBytes(0, 20_000);

export interface FakeBluesky {
  origin: string;
  /** ORIGIN_OVERRIDES for the CDN and the video host. */
  originOverrides: string;
  /** AppView calls so far, as `<method>?<query>`. */
  calls: string[];
  /** The DIDs the PLC directory was asked for so far, one per request. */
  directoryCalls: string[];
  close(): Promise<void>;
}

async function makeStreams(dir: string): Promise<void> {
  await Promise.all(streams.map(({ name, width, height }) =>
    promisify(execFile)("ffmpeg", [
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      `testsrc2=duration=4:size=${width}x${height}:rate=25`,
      "-f",
      "lavfi",
      "-i",
      "sine=duration=4",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-f",
      "hls",
      "-hls_time",
      "2",
      "-hls_playlist_type",
      "vod",
      "-hls_segment_filename",
      path.join(dir, `${name}-%d.ts`),
      path.join(dir, `${name}.m3u8`),
    ])
  ));
}

const master = [
  "#EXTM3U",
  "#EXT-X-VERSION:3",
  ...streams.flatMap((
    s,
  ) => [`#EXT-X-STREAM-INF:BANDWIDTH=${s.bandwidth},RESOLUTION=${s.width}x${s.height}`, `${s.name}/video.m3u8`]),
].join("\n");

function postsByUri(): Map<string, object> {
  const answers = new Map<string, object>();
  for (const { post } of feed) answers.set(post.uri, asThread(post));
  for (const post of quotes) answers.set(post.uri, asThread(post));
  answers.set(videoPost.uri, asThread(videoPost));
  answers.set(captionedVideoPost.uri, asThread(captionedVideoPost));
  for (const thread of [imagesThread, cardThread, parentChainThread]) answers.set(thread.thread.post.uri, thread);
  // Replies found in the recorded threads; a recorded answer of their own stays as it is.
  const replies = [imagesThread, cardThread, parentChainThread].flatMap(({ thread }) => repliesBelow(thread));
  for (const reply of replies) if (!answers.has(reply.post.uri)) answers.set(reply.post.uri, { thread: reply });
  return answers;
}

type ThreadNode = Record<string, any> & { post: PostView };
function repliesBelow(node: Record<string, any>): ThreadNode[] {
  const replies = ((node.replies ?? []) as Record<string, any>[]).filter((reply) => reply.post !== undefined);
  return replies.flatMap((reply) => [reply as ThreadNode, ...repliesBelow(reply)]);
}

/** A thread node with the replies below `depth` levels left out. */
function toDepth(node: Record<string, any>, depth: number): Record<string, any> {
  const { replies, ...rest } = node;
  if (depth <= 0 || !Array.isArray(replies)) return rest;
  return { ...rest, replies: replies.map((reply) => toDepth(reply, depth - 1)) };
}

function handles(threads: Map<string, object>): Map<string, string> {
  const byHandle = new Map<string, string>();
  for (const answer of threads.values()) {
    const author = (answer as { thread: { post: { author: { handle: string; did: string } } } }).thread.post.author;
    byHandle.set(author.handle, author.did);
  }
  return byHandle;
}

/**
 * The DID document the PLC directory gives for `did` (`GET https://plc.directory/<did>`): its
 * handle, a signing key, and its PDS as the service `#atproto_pds`.
 */
function didDocument(did: string, dids: Map<string, string>) {
  const handle = [...dids].find(([, each]) => each === did)?.[0] ?? "handle.invalid";
  return {
    "@context": [
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/multikey/v1",
      "https://w3id.org/security/suites/secp256k1-2019/v1",
    ],
    id: did,
    alsoKnownAs: [`at://${handle}`],
    verificationMethod: [{
      id: `${did}#atproto`,
      type: "Multikey",
      controller: did,
      publicKeyMultibase: "zQ3shsJcHdhfpKyF3U6rBQziDHsY1ikwCAsqGWhdC1tgaPQxq",
    }],
    service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: `https://${pdsHost}` }],
  };
}

export async function startFakeBluesky(): Promise<FakeBluesky> {
  const dir = await mkdtemp(path.join(tmpdir(), "fake-bluesky-"));
  await makeStreams(dir);
  const threads = postsByUri();
  const dids = handles(threads);
  const calls: string[] = [];
  const directoryCalls: string[] = [];
  const json = (res: http.ServerResponse, status: number, body: object) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const query = url.searchParams;
    if (url.pathname.startsWith("/xrpc/")) calls.push(`${url.pathname.slice(6)}?${query}`);
    if (url.pathname === "/xrpc/com.atproto.identity.resolveHandle") {
      const did = dids.get(query.get("handle") ?? "");
      return did
        ? json(res, 200, { did })
        : json(res, 400, { error: "InvalidRequest", message: "Unable to resolve handle" });
    }
    if (url.pathname === "/xrpc/app.bsky.feed.getPostThread") {
      const uri = query.get("uri") ?? "";
      if (uri.endsWith(`/${blockedRkey}`)) {
        return json(res, 200, {
          thread: {
            $type: "app.bsky.feed.defs#blockedPost",
            uri,
            blocked: true,
            author: { did: uri.split("/")[2], viewer: { blockedBy: true } },
          },
        });
      }
      const answer = threads.get(uri) as { thread: Record<string, any> } | undefined;
      const depth = Number(query.get("depth") ?? 6);
      return answer
        ? json(res, 200, { ...answer, thread: toDepth(answer.thread, depth) })
        : json(res, 400, { error: "NotFound", message: `Post not found: ${uri}` });
    }
    if (url.pathname === "/xrpc/app.bsky.feed.getAuthorFeed") {
      const actor = query.get("actor") ?? "";
      if (actor !== feedAuthor.did && actor !== feedAuthor.handle) {
        return json(res, 400, { error: "InvalidRequest", message: "Profile not found" });
      }
      return json(res, 200, authorFeedPage(query.get("filter"), query.get("cursor"), Number(query.get("limit") ?? 50)));
    }
    if (url.pathname.startsWith("/did:plc:")) {
      directoryCalls.push(url.pathname.slice(1));
      return json(res, 200, didDocument(url.pathname.slice(1), dids));
    }
    if (url.pathname === "/xrpc/com.atproto.sync.getBlob") {
      return query.get("did") === captionedVideoPost.author.did && query.get("cid") === captionCid
        ? res.writeHead(200, { "content-type": "text/vtt" }).end(captionVtt)
        : json(res, 400, { error: "InvalidRequest", message: "Blob not found" });
    }
    if (url.pathname.startsWith("/img/")) {
      return res.writeHead(200, { "content-type": "image/jpeg", "content-length": imageBytes.length }).end(imageBytes);
    }
    if (url.pathname.endsWith("/playlist.m3u8")) {
      return res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" }).end(master);
    }
    const stream = /\/(\d+p)\/(video\.m3u8|\1-\d+\.ts)$/.exec(url.pathname);
    if (stream) {
      const file = stream[2] === "video.m3u8" ? `${stream[1]}.m3u8` : stream[2]!;
      const type = file.endsWith(".ts") ? "video/mp2t" : "application/vnd.apple.mpegurl";
      return res.writeHead(200, { "content-type": type }).end(await readFile(path.join(dir, file)));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    originOverrides: `cdn.bsky.app=${origin},video.bsky.app=${origin},${pdsHost}=${origin}`,
    calls,
    directoryCalls,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
