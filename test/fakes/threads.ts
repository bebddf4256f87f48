// A local Threads on 127.0.0.1: post pages (www.threads.com) and Meta's CDN (the recorded photo's
// host, and scontent.cdninstagram.com for the built posts' files), one server for all; map those
// hosts to `origin` with `originOverrides`. The pages are built as the site writes them
// (test/fixtures/upstream/PROVENANCE.md, "Built pages of the local Threads"): the recorded data
// block of a photo post, after decoy blocks that name the post page's query but hold no posts; the
// video and carousel posts are that block with the post's media rewritten.
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
/** A photo, a video and a photo, in that order. */
export const carouselPost = { code: "C8Q7UZDseWz", user: "snazzahguy", text: "three slides" };
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

function page(blob: Json): string {
  return `<!DOCTYPE html><html lang="en"><head><title>Threads</title>\n${
    decoys.map(dataBlock).join("")
  }</head><body>\n` +
    `<div id="barcelona-page-layout"></div>\n${dataBlock(JSON.stringify(blob))}</body></html>\n`;
}

export interface FakeThreads {
  origin: string;
  /** ORIGIN_OVERRIDES for the site and its CDN's hosts. */
  originOverrides: string;
  /** Post pages asked for so far, by path. */
  pages: string[];
  close(): Promise<void>;
}

const postPath = /^\/@[\w.]+\/post\/([\w-]+)\/?$/;

export async function startFakeThreads(): Promise<FakeThreads> {
  const pages: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://threads.local");
    const code = postPath.exec(url.pathname)?.[1];
    if (code !== undefined) {
      pages.push(url.pathname);
      const blob = blobs.get(code);
      if (blob === undefined) return void res.writeHead(404, { "content-type": "text/html" }).end("<p>Not found</p>");
      return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(blob));
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
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
