// A local Xiaohongshu on 127.0.0.1: note pages (www.xiaohongshu.com), a short link (xhslink.com, xhslink.cn)
// and the CDN (sns-webpic-qc.xhscdn.com for photos, sns-video-bd.xhscdn.com for videos), one
// server for all; map those hosts to `origin` with `originOverrides`. The pages are built as the
// site writes them (test/fixtures/upstream/PROVENANCE.md, "Built answers of the local
// Xiaohongshu"): the note in `window.__INITIAL_STATE__`, a JavaScript literal with `undefined`
// values, `/` written `\u002F`, a `new Map(...)` in a store the service does not read.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fakeBytes } from "./cdn.ts";

export const photoNote = {
  id: "64f1c2a3000000001e03b7d2",
  token: "ABphotoToken0",
  title: "周末去海边",
  desc: "三张照片 #海边[话题]#",
  author: "小海",
};
export const videoNote = {
  id: "674051740000000007027a15",
  token: "CBgeL8Dxd1ZWBhwqRd568gAZ_iwG-9JIf9tnApNmteU2E=",
  title: "相互喜欢就可以了",
  author: "街头采访",
  durationMs: 4_000,
};
export const blockedNote = "65000000000000000000dead";
export const shortCode = "AbCd12";
/** Bytes of each photo on the fake CDN: photo i (from 1) is `photoBytes(i)`. */
export const photoBytes = (i: number) => fakeBytes(i * 100_000, i * 100_000 + 30_000);
/** The CDN node that fails: the 720p H.264 stream's link answers 503, and its backup serves it. */
export const failingStream = "/stream/h264-v720.mp4";
/** The video's streams as the page lists them, each with the height of its file. */
export const videoStreams = [
  { codec: "h264", height: 720, bitrate: 900_000, file: "v720.mp4" },
  { codec: "h264", height: 1080, bitrate: 2_100_000, file: "v1080.mp4" },
  { codec: "h265", height: 1080, bitrate: 1_400_000, file: "v1080.mp4" },
];

const cdn = { photos: "http://sns-webpic-qc.xhscdn.com", videos: "http://sns-video-bd.xhscdn.com" };
/** Where the site's serializer writes `undefined`, the fake's objects hold this. */
const missing = "__undefined__";
const hosts = [
  "www.xiaohongshu.com",
  "xhslink.com",
  "xhslink.cn",
  "sns-webpic-qc.xhscdn.com",
  "sns-video-bd.xhscdn.com",
];

const image = (i: number, at = `${cdn.photos}/1040g00830/photo-${i}!nd_dft_wlteh_jpg_3`) => ({
  fileId: "",
  height: 1440,
  width: 1080,
  traceId: "",
  livePhoto: false,
  url: "",
  urlPre: at.replace("nd_dft", "nd_prv"),
  urlDefault: at,
  infoList: [{ imageScene: "WB_PRV", url: at.replace("nd_dft", "nd_prv") }, { imageScene: "WB_DFT", url: at }],
  stream: {},
});

function stream({ codec, height, bitrate, file }: (typeof videoStreams)[number]) {
  return {
    masterUrl: `${cdn.videos}/stream/${codec}-${file}`,
    backupUrls: [`${cdn.videos}/backup/${codec}-${file}`],
    width: (height * 3) / 4,
    height,
    videoBitrate: bitrate,
    avgBitrate: bitrate,
    size: 500_000,
    duration: videoNote.durationMs,
    fps: 30,
    videoCodec: codec,
    audioCodec: "aac",
    format: "mp4",
    qualityType: height >= 1080 ? "FHD" : "HD",
    streamType: 259,
  };
}

/** The note as the state holds it; `expired`: the words, but the site's placeholder for every photo. */
function noteOf(id: string, expired: boolean): object | null {
  const user = (nickname: string) => ({
    userId: "5c31698d0000000007018a31",
    nickname,
    avatar: `${cdn.photos}/avatar/1.jpg`,
    xsecToken: missing,
  });
  if (id === photoNote.id) {
    const images = expired
      ? [image(1, "https://picasso-static.xiaohongshu.com/fe-platform/placeholder.png")]
      : [1, 2, 3].map((i) => image(i));
    return {
      noteId: id,
      type: "normal",
      title: photoNote.title,
      desc: photoNote.desc,
      user: user(photoNote.author),
      imageList: images,
      tagList: [{ id: "1", name: "海边", type: "topic" }],
      time: 1730000000000,
      video: missing,
    };
  }
  if (id === videoNote.id) {
    const byCodec = (codec: string) => videoStreams.filter((each) => each.codec === codec).map(stream);
    return {
      noteId: id,
      type: "video",
      title: videoNote.title,
      desc: "#街头采访[话题]#",
      user: user(videoNote.author),
      imageList: [image(9)],
      tagList: [],
      video: {
        capa: { duration: videoNote.durationMs / 1000 },
        consumer: { originVideoKey: "pre_post/origin" },
        media: { videoId: 1, stream: { h264: byCodec("h264"), h265: byCodec("h265"), av1: [], h266: [] } },
      },
    };
  }
  return null;
}

/** A note page as the site writes it: its state a JavaScript literal, slashes escaped. */
function page(id: string, note: object | null): string {
  const detail = note === null
    ? {}
    : { [id]: { comments: { list: [], cursor: "" }, currentTime: 1730000001000, note } };
  const state = {
    global: { appSettings: { notificationInterval: 30 }, supportWebp: true, loginUser: missing },
    note: { currentNoteId: id, noteDetailMap: detail, serverRequestInfo: { state: "success" } },
    aiNote: "__map__",
  };
  const literal = JSON.stringify(state)
    .replaceAll("/", "\\u002F")
    .replaceAll(`"${missing}"`, "undefined")
    .replace('"__map__"', '{"detailMap":new Map([["k",{"v":undefined}]])}');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>小红书</title></head><body><div id="app"></div>` +
    `<script>window.__INITIAL_STATE__=${literal};window.__SETUP_SERVER_STATE__={}</script></body></html>`;
}

export interface FakeXiaohongshu {
  origin: string;
  /** ORIGIN_OVERRIDES for the site, its short links and its CDN. */
  originOverrides: string;
  /** Note pages asked for so far, as `<path>?<query>`. */
  pages: string[];
  /** Video files asked for so far, by path. */
  videoFiles: string[];
  /** A video file's bytes (`v720.mp4`, `v1080.mp4`), as the CDN serves it. */
  video(file: string): Buffer;
  close(): Promise<void>;
}

async function makeVideos(dir: string): Promise<Record<string, Buffer>> {
  const files: Record<string, Buffer> = {};
  // Small pictures: the files stand for the streams, their sizes do not matter.
  for (const [height, size] of [[720, "90x160"], [1080, "108x192"]] as const) {
    const file = path.join(dir, `v${height}.mp4`);
    await promisify(execFile)("ffmpeg", [
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      `testsrc2=duration=${videoNote.durationMs / 1000}:size=${size}:rate=25`,
      "-f",
      "lavfi",
      "-i",
      `sine=duration=${videoNote.durationMs / 1000}`,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-movflags",
      "+faststart",
      file,
    ]);
    files[`v${height}.mp4`] = await readFile(file);
  }
  return files;
}

export async function startFakeXiaohongshu(): Promise<FakeXiaohongshu> {
  const dir = await mkdtemp(path.join(tmpdir(), "fake-xiaohongshu-"));
  const videos = await makeVideos(dir);
  const pages: string[] = [];
  const videoFiles: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const note = /^\/(?:explore|discovery\/item)\/([0-9a-f]+)$/.exec(url.pathname)?.[1];
    if (note !== undefined) {
      pages.push(`${url.pathname}${url.search}`);
      if (note === blockedNote) {
        return res.writeHead(302, { location: `/website-login/captcha?redirectPath=${encodeURIComponent(url.href)}` })
          .end();
      }
      const token = url.searchParams.get("xsec_token");
      const known = noteOf(note, false);
      if (known === null) return res.writeHead(404, { "content-type": "text/html" }).end("<html>404</html>");
      const valid = token === photoNote.token || token === videoNote.token;
      // Without a token the site shows no note; with a stale one its words and placeholder pictures.
      const shown = token === null ? null : valid ? known : noteOf(note, true);
      return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(note, shown));
    }
    // The short link's shapes: `/a/<code>`, and `/m/<code>` as the app shares it since 2025 (on xhslink.cn too).
    if (url.pathname === `/a/${shortCode}` || url.pathname === `/m/${shortCode}`) {
      return res.writeHead(302, {
        location:
          `https://www.xiaohongshu.com/discovery/item/${photoNote.id}?app_platform=android&xsec_source=app_share&type=normal&xsec_token=${photoNote.token}`,
      }).end();
    }
    const photo = /^\/1040g00830\/photo-(\d+)!nd_dft_wlteh_jpg_3$/.exec(url.pathname);
    if (photo) {
      const bytes = photoBytes(Number(photo[1]));
      return res.writeHead(200, { "content-type": "image/jpeg", "content-length": bytes.length }).end(bytes);
    }
    const video = /^\/(?:stream|backup)\/h26[45]-(v\d+\.mp4)$/.exec(url.pathname);
    if (video) videoFiles.push(url.pathname);
    if (url.pathname === failingStream) return res.writeHead(503).end();
    if (video && videos[video[1]!]) {
      const bytes = videos[video[1]!]!;
      return res.writeHead(200, {
        "content-type": "video/mp4",
        "content-length": bytes.length,
        "accept-ranges": "bytes",
      }).end(bytes);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    originOverrides: hosts.map((host) => `${host}=${origin}`).join(","),
    pages,
    videoFiles,
    video: (file) => videos[file]!,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
