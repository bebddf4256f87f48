// A local Threads on 127.0.0.1: post pages (www.threads.com) and Meta's CDN (the recorded photo's
// host, and scontent.cdninstagram.com for the built posts' files), one server for all; map those
// hosts to `origin` with `originOverrides`. The pages are built as the site writes them
// (test/fixtures/upstream/PROVENANCE.md, "Built pages of the local Threads"): the recorded data
// block of a photo post, after decoy blocks that name the post page's query but hold no posts; the
// video and carousel posts are that block with the post's media rewritten. The carousel's page does
// not carry it: only its LSD token and a `csrftoken` cookie, with which the web client's query
// (POST /graphql/query, FxEmbed's form and headers) answers the block's result.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fakeBytes } from "./cdn.ts";

/** The recorded block as parsed JSON, walked by the paths the readers use. */
type Json = Record<string, any>;

const recordedBlob: Json = JSON.parse(
  readFileSync(
    path.join(
      import.meta.dirname,
      "../fixtures/upstream/threads/relay_BarcelonaPostPageDirectQuery_photo_self-reply_replies_DXO2PlPEoOQ.json",
    ),
    "utf8",
  ),
);
const postOfBlob = (blob: Json): Json =>
  blob.require[0][3][0].__bbox.require[0][3][1].__bbox.result.data.data.edges[0].node.thread_items[0].post;
const recordedPost = postOfBlob(recordedBlob);
const recordedImage = recordedPost.image_versions2.candidates[0];

const cdn = "https://scontent.cdninstagram.com";
const image = (name: string, width: number, height: number) => ({ url: `${cdn}/v/${name}.jpg`, width, height });
const video = (
  name: string,
) => [{ type: 101, url: `${cdn}/v/${name}.mp4` }, { type: 102, url: `${cdn}/v/${name}.mp4` }];

export const photoPost = {
  code: "DXO2PlPEoOQ",
  user: "kanisleo328",
  author: recordedPost.user.full_name as string,
  text: recordedPost.caption.text as string,
  imageUrl: recordedImage.url as string,
  width: recordedImage.width as number,
  height: recordedImage.height as number,
};
export const videoPost = { code: "DObJvDoDkQI", user: "mds", text: "a clip", durationSec: 4, width: 720, height: 1280 };
/** A photo, a video and a photo, in that order; its page does not carry it, the query answers it. */
export const carouselPost = {
  code: "C8Q7UZDseWz",
  user: "snazzahguy",
  text: "three slides",
  pk: "3391471405449209267",
};
/** The query id (THREADS_QUERY_ID) this Threads answers, its LSD token and its csrftoken cookie. */
export const threadsAccess = { queryId: "7448594591874178", lsd: "AVpFakeLsd_1x", csrf: "fakeCsrf42" };
const appId = "238260118697367";
/** A post whose page the site does not have. */
export const missingCode = "XXXXXXXXXXX";

/** The bytes the CDN serves at each path. */
export const files = new Map<string, Buffer>([
  [new URL(photoPost.imageUrl).pathname, fakeBytes(0, 20_000)],
  ["/v/clip-poster.jpg", fakeBytes(20_000, 25_000)],
  ["/v/clip.mp4", fakeBytes(100_000, 180_000)],
  ["/v/slide-1.jpg", fakeBytes(200_000, 215_000)],
  ["/v/slide-2-poster.jpg", fakeBytes(215_000, 220_000)],
  ["/v/slide-2.mp4", fakeBytes(300_000, 360_000)],
  ["/v/slide-3.jpg", fakeBytes(400_000, 412_000)],
]);

/** The recorded block with its post's code, user, words and media replaced. */
function builtBlob(code: string, user: string, text: string, media: Json): Json {
  const blob = structuredClone(recordedBlob);
  const post = postOfBlob(blob);
  for (const key of ["carousel_media", "video_versions"]) post[key] = null;
  Object.assign(post, { code, caption: { ...post.caption, text }, user: { ...post.user, username: user } }, media);
  return blob;
}

const blobs = new Map<string, Json>([
  [photoPost.code, recordedBlob],
  [
    videoPost.code,
    builtBlob(videoPost.code, videoPost.user, videoPost.text, {
      media_type: 2,
      original_width: videoPost.width,
      original_height: videoPost.height,
      video_duration: videoPost.durationSec,
      video_versions: video("clip"),
      image_versions2: { candidates: [image("clip-poster", 720, 1280)] },
    }),
  ],
  [
    carouselPost.code,
    builtBlob(carouselPost.code, carouselPost.user, carouselPost.text, {
      media_type: 8,
      image_versions2: { candidates: [image("slide-1", 1080, 1080)] },
      carousel_media: [
        { media_type: 1, image_versions2: { candidates: [image("slide-1", 1080, 1080)] }, video_versions: null },
        {
          media_type: 2,
          original_width: 1080,
          original_height: 1920,
          video_duration: 3.2,
          image_versions2: { candidates: [image("slide-2-poster", 1080, 1920)] },
          video_versions: video("slide-2"),
        },
        { media_type: 1, image_versions2: { candidates: [image("slide-3", 1080, 1350)] }, video_versions: null },
      ],
    }),
  ],
]);

/** A data block as the page writes it: one line, two spaces before `data-content-len`. */
const dataBlock = (json: string) =>
  `<script type="application/json"  data-content-len="${Buffer.byteLength(json)}" data-sjs>${json}</script>\n`;
/** Blocks that name the post page's query and hold no posts, as most of a real page's do. */
const decoys = [
  JSON.stringify({
    require: [["ScheduledServerJS", "handle", null, [{
      __bbox: {
        define: [["BarcelonaPostPageDirectQuery$Parameters", [], { params: { id: "26742885138663415" } }, -1]],
      },
    }]]],
  }),
  JSON.stringify({
    require: [["ScheduledServerJS", "handle", null, [{
      __bbox: {
        require: [["RelayPrefetchedStreamCache", "next", [], [
          "adp_BarcelonaPostPageRefetchableQueryRelayPreloader_69eacddb0422d9b88241000",
          { __bbox: { complete: true, result: { data: { viewer: null } }, sequence_number: 0 } },
        ]]],
      },
    }]]],
  }),
];

/** A post's page: the decoys, the LSD token as the page's scripts define it, and the post's block unless it is left to the query. */
function page(blob: Json | null): string {
  const lsd =
    `<script>requireLazy(["ServerJSDefine"],function(m){m.handleDefines([["LSD",[],{"token":"${threadsAccess.lsd}"},323]])});</script>\n`;
  const head = `<!DOCTYPE html><html lang="en"><head><title>Threads</title>\n${decoys.map(dataBlock).join("")}${lsd}`;
  const post = blob === null ? "" : dataBlock(JSON.stringify(blob));
  return `${head}</head><body>\n<div id="barcelona-page-layout"></div>\n${post}</body></html>\n`;
}

/** The query's answer for a form and its headers, as the web client gets it; null for a refused query (400). */
function queryAnswer(form: URLSearchParams, headers: http.IncomingHttpHeaders): Json | null {
  const { lsd, csrf, queryId } = threadsAccess;
  const allowed = form.get("lsd") === lsd && headers["x-fb-lsd"] === lsd && headers["x-ig-app-id"] === appId &&
    headers["x-csrftoken"] === csrf && String(headers.cookie).includes(`csrftoken=${csrf}`) &&
    form.get("doc_id") === queryId && form.get("fb_api_req_friendly_name") === "BarcelonaPostPageDirectQuery";
  const variables = JSON.parse(form.get("variables") ?? "{}") as { postID?: string };
  if (!allowed || variables.postID !== carouselPost.pk) return null;
  return blobs.get(carouselPost.code)!.require[0][3][0].__bbox.require[0][3][1].__bbox.result;
}

export interface FakeThreads {
  origin: string;
  /** ORIGIN_OVERRIDES for the site and its CDN's hosts. */
  originOverrides: string;
  /** Post pages asked for so far, by path. */
  pages: string[];
  /** Queries asked so far, by whether they were answered. */
  queries: boolean[];
  close(): Promise<void>;
}

const postPath = /^\/@[\w.]+\/post\/([\w-]+)\/?$/;

export async function startFakeThreads(): Promise<FakeThreads> {
  const pages: string[] = [];
  const queries: boolean[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://threads.local");
    if (req.method === "POST" && url.pathname === "/graphql/query") {
      let form = "";
      req.setEncoding("utf8").on("data", (part: string) => (form += part)).on("end", () => {
        const answer = queryAnswer(new URLSearchParams(form), req.headers);
        queries.push(answer !== null);
        if (answer === null) return void res.writeHead(400, { "content-type": "text/html" }).end("<p>Bad request</p>");
        res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(JSON.stringify(answer));
      });
      return;
    }
    const code = postPath.exec(url.pathname)?.[1];
    if (code !== undefined) {
      pages.push(url.pathname);
      const blob = blobs.get(code);
      if (blob === undefined) return void res.writeHead(404, { "content-type": "text/html" }).end("<p>Not found</p>");
      const cookies = [`csrftoken=${threadsAccess.csrf}; path=/; secure`, "mid=aFakeMid; path=/; secure; httponly"];
      return void res.writeHead(200, { "content-type": "text/html; charset=utf-8", "set-cookie": cookies })
        .end(page(code === carouselPost.code ? null : blob));
    }
    const bytes = files.get(url.pathname);
    if (bytes === undefined) return void res.writeHead(404).end();
    const type = url.pathname.endsWith(".mp4") ? "video/mp4" : "image/jpeg";
    res.writeHead(200, { "content-type": type, "content-length": bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hosts = ["www.threads.com", new URL(photoPost.imageUrl).hostname, new URL(cdn).hostname];
  return {
    origin,
    originOverrides: hosts.map((host) => `${host}=${origin}`).join(","),
    pages,
    queries,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
