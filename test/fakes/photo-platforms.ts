// Instagram, Reddit and TikTok as gallery-dl's own extractors meet them, on 127.0.0.1: an HTTPS
// server that answers for www.instagram.com, www.reddit.com and www.tiktok.com with the bodies in
// test/fixtures/upstream/gallery/ (see PROVENANCE.md there), under a certificate of a test
// authority made at start-up, and a plain HTTP server for their media CDNs that serves a real
// picture (or clip, or MP3) made by ffmpeg for every file the fixtures name, in the size (or length) they name.
// The service reaches them through ORIGIN_OVERRIDES (the egress gate routes the tools' CONNECTs,
// the relay its fetches); gallery-dl trusts the authority through GALLERY_DL_CA_FILE, yt-dlp through `ytdlpPath`
// (YTDLP_PATH), a wrapper of the installed yt-dlp.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { makeCertificates, ytdlpTrusting } from "../helpers/test-authority.ts";
import {
  type InstagramProfileFake,
  instagramProfileFake,
  instagramStaticHost,
  mediaIdOf,
} from "./instagram-profile.ts";

const run = promisify(execFile);
const fixtures = fileURLToPath(new URL("../fixtures/upstream/gallery/", import.meta.url));

/** The posts the platforms hold, by their public link. */
export const photoPosts = {
  instagramThreePhotos: "https://www.instagram.com/p/C9kQ2mXoR3a/",
  instagramPhotoVideoPhoto: "https://www.instagram.com/p/C9kQ7vMxP1b/",
  /** Instagram sends a logged-out client to its login page. */
  instagramLoginWall: "https://www.instagram.com/p/C9kR0wallZz/",
  /** Instagram answers 404 for a removed post. */
  instagramRemoved: "https://www.instagram.com/p/C9kR1goneXy/",
  /** Instagram takes the request and never answers. */
  instagramStalled: "https://www.instagram.com/p/C9kS2slowQq/",
  /** Instagram's API answers with JSON that never ends, as fast as it is read. */
  instagramEndless: "https://www.instagram.com/p/C9kT3endlEs/",
  redditGallery: "https://www.reddit.com/gallery/1gq3xk7",
  tiktokSlideshow: "https://www.tiktok.com/@breadlab/photo/7436185392745209118",
} as const;

const platformHosts = ["www.instagram.com", instagramStaticHost, "www.reddit.com", "www.tiktok.com"];
const cdnHosts = [
  "instagram.fbog4-1.fna.fbcdn.net",
  "i.redd.it",
  "p16-sign-va.tiktokcdn.com",
  "sf16-ies-music-va.tiktokcdn.com",
];

/** A file a fixture names: where the CDN serves it, its size and kind (a sound's size is 0 by 0, its length named). */
export interface CdnFile {
  url: string;
  width: number;
  height: number;
  kind: "photo" | "video" | "sound";
  durationSec?: number;
}

export interface PhotoPlatforms {
  /** The ORIGIN_OVERRIDES value that sends the platforms' hosts here. */
  originOverrides: string;
  /** The test authority's certificate (PEM file): GALLERY_DL_CA_FILE. */
  caFile: string;
  /** A yt-dlp that trusts the test authority (YTDLP_PATH): without it yt-dlp cannot read the platforms here. */
  ytdlpPath: string;
  /** The files of each post in the platform's order, as gallery-dl names them. */
  files: Record<keyof typeof photoPosts, CdnFile[]>;
  /** The bytes the CDN serves for a file URL. */
  bytes(url: string): Promise<Uint8Array>;
  /** Every request the platforms and CDNs got, in order. */
  requestLog: { host: string; path: string; cookie: string | null }[];
  /** The Instagram profile (test/fakes/instagram-profile.ts). */
  instagramProfile: Pick<InstagramProfileFake, "pagesAsked">;
  close(): Promise<void>;
}

const shortcodeOf = (link: string) => /\/p\/([^/]+)/.exec(link)![1]!;

async function loadJson(name: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(fixtures, name), "utf8"));
}

type Json = Record<string, any>;

function instagramFiles(info: Json): CdnFile[] {
  return (info.items[0].carousel_media as Json[]).map((item) =>
    item.video_versions
      ? {
        url: item.video_versions.at(-1).url,
        width: item.video_versions.at(-1).width,
        height: item.video_versions.at(-1).height,
        kind: "video" as const,
      }
      : {
        url: item.image_versions2.candidates[0].url,
        width: item.image_versions2.candidates[0].width,
        height: item.image_versions2.candidates[0].height,
        kind: "photo" as const,
      }
  );
}

function redditFiles(listing: Json[]): CdnFile[] {
  const post = listing[0]!.data.children[0].data;
  return (post.gallery_data.items as Json[]).map(({ media_id }) => {
    const source = post.media_metadata[media_id].s;
    // gallery-dl's own rewrite: the preview host's file is the same name on i.redd.it, without the query.
    return {
      url: source.u.split("?")[0].replace("/preview.", "/i."),
      width: source.x,
      height: source.y,
      kind: "photo" as const,
    };
  });
}

/** The slideshow's pictures, then its music (gallery-dl's order: `imagePost.images[]`, then `music.playUrl`). */
function tiktokFiles(scope: Json): CdnFile[] {
  const post = scope.__DEFAULT_SCOPE__["webapp.video-detail"].itemInfo.itemStruct;
  const pictures = (post.imagePost.images as Json[]).map((image) => ({
    url: image.imageURL.urlList[0],
    width: image.imageWidth,
    height: image.imageHeight,
    kind: "photo" as const,
  }));
  const music = {
    url: post.music.playUrl,
    width: 0,
    height: 0,
    kind: "sound" as const,
    durationSec: post.music.duration,
  };
  return [...pictures, music];
}

/** One picture (a JPEG of its own colour), clip (H.264 + AAC MP4) or sound (MP3) per file, in the file's size. */
async function makeMedia(dir: string, files: CdnFile[]): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  await Promise.all(
    files.map(async (file, i) => {
      const name = path.join(dir, `file${i}.${{ photo: "jpg", video: "mp4", sound: "mp3" }[file.kind]}`);
      const size = `${file.width}x${file.height}`;
      const colour = `0x${((i * 0x3b5f17 + 0x224466) & 0xffffff).toString(16).padStart(6, "0")}`;
      const args = file.kind === "photo"
        ? ["-f", "lavfi", "-i", `color=c=${colour}:s=${size}`, "-frames:v", "1", name]
        : file.kind === "sound"
        ? ["-f", "lavfi", "-i", `sine=f=330:d=${file.durationSec}`, "-c:a", "libmp3lame", "-b:a", "64k", name]
        : [
          "-f",
          "lavfi",
          "-i",
          `testsrc=s=${size}:d=2`,
          "-f",
          "lavfi",
          "-i",
          "sine=d=2",
          "-c:v",
          "libx264",
          "-pix_fmt",
          "yuv420p",
          "-c:a",
          "aac",
          "-shortest",
          "-movflags",
          "+faststart",
          name,
        ];
      await run("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args]);
      made.set(new URL(file.url).pathname, name);
    }),
  );
  return made;
}

function serveBytes(req: IncomingMessage, res: ServerResponse, bytes: Buffer, type: string): void {
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
  const headers = { "content-type": type, "accept-ranges": "bytes", "last-modified": "Mon, 11 Nov 2024 13:00:00 GMT" };
  if (range) {
    const start = Number(range[1]);
    const end = Math.min(range[2] ? Number(range[2]) : bytes.length - 1, bytes.length - 1);
    res.writeHead(206, {
      ...headers,
      "content-length": end - start + 1,
      "content-range": `bytes ${start}-${end}/${bytes.length}`,
    });
    return void res.end(bytes.subarray(start, end + 1));
  }
  res.writeHead(200, { ...headers, "content-length": bytes.length });
  res.end(req.method === "HEAD" ? undefined : bytes);
}

export async function startPhotoPlatforms(): Promise<PhotoPlatforms> {
  const dir = await mkdtemp(path.join(tmpdir(), "photo-platforms-"));
  const [three, mixed, reddit, tiktok] = await Promise.all([
    loadJson("instagram_media_info_carousel_3photos.json"),
    loadJson("instagram_media_info_carousel_photo_video_photo.json"),
    loadJson("reddit_comments_gallery_1gq3xk7.json"),
    loadJson("tiktok_rehydration_photo_7436185392745209118.json"),
  ]) as [Json, Json, Json[], Json];
  const files = {
    instagramThreePhotos: instagramFiles(three),
    instagramPhotoVideoPhoto: instagramFiles(mixed),
    instagramLoginWall: [],
    instagramRemoved: [],
    instagramStalled: [],
    instagramEndless: [],
    redditGallery: redditFiles(reddit),
    tiktokSlideshow: tiktokFiles(tiktok),
  };
  const [{ caFile, key, cert }, media] = await Promise.all([
    makeCertificates(dir, platformHosts, "photo platforms"),
    makeMedia(dir, Object.values(files).flat()),
  ]);
  const requestLog: PhotoPlatforms["requestLog"] = [];
  const log = (req: IncomingMessage, url: URL) =>
    requestLog.push({ host: url.hostname, path: url.pathname, cookie: req.headers.cookie ?? null });

  const instagramMedia = new Map<string, Json>([
    [mediaIdOf(shortcodeOf(photoPosts.instagramThreePhotos)), three],
    [mediaIdOf(shortcodeOf(photoPosts.instagramPhotoVideoPhoto)), mixed],
  ]);
  const profile = instagramProfileFake(three.items[0].carousel_media[0]);
  const loginWallId = mediaIdOf(shortcodeOf(photoPosts.instagramLoginWall));
  const stalledId = mediaIdOf(shortcodeOf(photoPosts.instagramStalled));
  const endlessId = mediaIdOf(shortcodeOf(photoPosts.instagramEndless));
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  };

  const platforms = createHttpsServer({ key, cert }, async (req, res) => {
    const url = new URL(req.url ?? "/", `https://${req.headers.host}`);
    log(req, url);
    if (await profile.answer(req, res, url)) return;
    if (url.hostname === "www.instagram.com") {
      const id = /^\/api\/v1\/media\/(\d+)\/info\/$/.exec(url.pathname)?.[1];
      if (id === stalledId) return;
      if (id === endlessId) return endlessJson(res);
      if (id === loginWallId) {
        // What Instagram does to a logged-out client it will not serve: off to the login page.
        res.writeHead(302, {
          location: `https://www.instagram.com/accounts/login/?next=${encodeURIComponent(url.pathname)}`,
        });
        return void res.end();
      }
      if (url.pathname === "/accounts/login/") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return void res.end("<!DOCTYPE html><html><head><title>Login • Instagram</title></head><body></body></html>");
      }
      const info = id === undefined ? undefined : instagramMedia.get(id);
      if (info) return json(res, 200, info);
      return json(res, 404, { message: "Media not found or unavailable", status: "fail" });
    }
    if (url.hostname === "www.reddit.com" && url.pathname === "/comments/1gq3xk7/.json") return json(res, 200, reddit);
    // TikTok serves a post's page under any handle, or none: yt-dlp asks `/@_/video/<id>` and gallery-dl
    // `/@/video/<id>` for a `/share/video/<id>` link.
    if (url.hostname === "www.tiktok.com" && /^\/@[\w.-]*\/video\/7436185392745209118$/.test(url.pathname)) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return void res.end(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Bread Lab on TikTok</title></head><body>` +
          `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">${
            JSON.stringify(tiktok)
          }</script></body></html>`,
      );
    }
    json(res, 404, { error: 404, message: "Not Found" });
  });

  const cdn = createHttpServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    log(req, url);
    const file = media.get(url.pathname);
    if (file === undefined) {
      res.writeHead(404);
      return void res.end();
    }
    const type = { mp4: "video/mp4", mp3: "audio/mpeg", jpg: "image/jpeg" }[file.slice(-3)]!;
    serveBytes(req, res, await readFile(file), type);
  });

  const listen = (server: typeof cdn | typeof platforms) =>
    new Promise<number>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
    );
  const [platformPort, cdnPort] = await Promise.all([listen(platforms), listen(cdn)]);
  const overrides = [
    ...platformHosts.map((host) => `${host}=https://127.0.0.1:${platformPort}`),
    ...cdnHosts.map((host) => `${host}=http://127.0.0.1:${cdnPort}`),
  ];

  return {
    originOverrides: overrides.join(","),
    caFile,
    ytdlpPath: await ytdlpTrusting(dir, caFile),
    files,
    requestLog,
    instagramProfile: profile,
    async bytes(url) {
      return readFile(media.get(new URL(url).pathname)!);
    },
    async close() {
      platforms.closeAllConnections();
      cdn.closeAllConnections();
      await Promise.all([
        new Promise((resolve) => platforms.close(resolve)),
        new Promise((resolve) => cdn.close(resolve)),
      ]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `{"items":[{"caption":"...` and more items, without end, as fast as the client reads. */
function endlessJson(res: ServerResponse): void {
  const item = Buffer.from(`{"caption":{"text":"${"ha".repeat(4000)}"}},`);
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
  const more = () => {
    while (!res.destroyed) if (!res.write(item)) return void res.once("drain", more);
  };
  res.write('{"num_results":1,"items":[');
  more();
}
