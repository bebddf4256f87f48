// A local video site for page-mode tests: small media made by ffmpeg at start-up into a temp
// dir, served over node:http on 127.0.0.1 with Range support (ffmpeg seeks). Every page is one
// the yt-dlp generic (html5) extractor understands. Add the site's `host` to the extra page
// hosts so that it counts as platform OTHER.
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Length of every clip, in seconds. */
export const clipDurationSec = 4;
/** Length of the second video of the two-video page: the first half of the clip. */
export const shortClipDurationSec = 2;
/** Length of the long video (`startMediaSite({ long: true })`), in seconds; its key frames are a second apart. */
export const longDurationSec = 30;
/** The cues of the subtitled page's English track. */
export const subtitleCues = ["Hello from the subtitles", "A second line"];

export interface LoggedRequest {
  path: string;
  /** The query, with its `?` (empty without one). */
  search: string;
  userAgent: string | null;
  referer: string | null;
  range: string | null;
  cookie: string | null;
}

/** The cookie the members page and its video want: name, value. */
export const membersCookie = { name: "member", value: "s3cret-7f1d" } as const;

export interface MediaSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, for the extra page hosts of the platform table. */
  host: string;
  pages: {
    /** `<video src>` of an MP4 with H.264 + AAC and its index at the start. */
    progressive: string;
    /** The same MP4 as a JSON-LD VideoObject, the one kind of page for which yt-dlp gives a duration. */
    jsonLd: string;
    /** HLS with separate video and audio playlists: yt-dlp lists two formats to merge. */
    split: string;
    /** HLS of MPEG-TS segments with video and audio muxed (audio needs aac_adtstoasc). */
    hls: string;
    /** An HTML page without media: yt-dlp says "Unsupported URL". */
    noMedia: string;
    /** An RSS feed with no items: yt-dlp describes a playlist of no entries. */
    emptyFeed: string;
    /** HTTP 404. */
    missing: string;
    /** A page whose video file is 404: extraction works, fetching the media fails at once. */
    goneMedia: string;
    /** A page whose video file breaks off halfway, and answers 503 when asked for the rest. */
    truncatedMedia: string;
    /** A page whose video file stops sending halfway and keeps the connection open. */
    stalledMedia: string;
    /** A page whose video is on a private address (127.0.0.2) that is not the site's own. */
    privateMedia: string;
    /** An RSS feed of `entries` links to the progressive page (`?entry=<n>`), which yt-dlp lists as a playlist. */
    feed: (entries: number) => string;
    /** The progressive page as entry `n`, answered after `waitMs` (a busy site's page). */
    slow: (n: number, waitMs: number) => string;
    /** The same feed at one link, of as many entries as `growingFeed.entries` says now: a channel that gains posts. */
    growingFeed: string;
    /** HTTP 429, as a platform that rate-limits this server answers. */
    rateLimited: string;
    /** HTTP 403 whose reason phrase is yt-dlp's YouTube bot-check message, which yt-dlp then prints. */
    botCheck: string;
    /** A page whose HTML and video answer only with the cookie `membersCookie` (else 403). */
    members: string;
    /** Two `<video>` elements, the clip and its first half: yt-dlp describes a playlist of two. */
    twoVideos: string;
    /** The clip with a `<track kind="subtitles" srclang="en">` (WebVTT). */
    subtitled: string;
    /** The clip with its index at the end (as ffmpeg writes MP4 by default), from a server that honours Range. */
    tailIndex: string;
    /** The same file from a server that ignores Range (as `python3 -m http.server` does). */
    tailIndexNoRange: string;
    /** The clip's Content-Length, a hang-up after half of it, and Range ignored: every reconnect starts over. */
    hangupNoRange: string;
    /** The same hang-up from a server that honours Range: a reconnect gets the rest. */
    hangupRanged: string;
    /** The clip's first half, then pseudo-random bytes to its Content-Length (Range honoured). */
    garbage: string;
    /** With `long`: a JSON-LD VideoObject of the long video (H.264 + AAC, `longDurationSec`), its length given. */
    long: string;
  };
  /** Direct URL of the progressive MP4. */
  mp4Url: string;
  /** Size of that MP4 in bytes (the JSON-LD page says it as contentSize). */
  mp4Bytes: number;
  /** Requests so far, in order (for example to see that ffmpeg read the media with the right headers). */
  requestLog: LoggedRequest[];
  /** How many entries `pages.growingFeed` lists now: a test sets it. */
  growingFeed: { entries: number };
  close(): Promise<void>;
}

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".mp4": "video/mp4",
  ".m3u8": "application/vnd.apple.mpegurl",
  ".ts": "video/mp2t",
  ".jpg": "image/jpeg",
  ".vtt": "text/vtt",
};

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const emptyFeed = (origin: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>An empty feed</title><link>${origin}/</link><description>Nothing yet</description></channel></rss>`;

const pages: Record<string, string> = {
  "/progressive.html": page(
    "Progressive test clip",
    '<video src="/media/clip.mp4" poster="/media/poster.jpg"></video>',
  ),
  "/split.html": page(
    "Split test clip",
    '<video><source src="/split/master.m3u8" type="application/x-mpegURL"></video>',
  ),
  "/hls.html": page("HLS test clip", '<video><source src="/hls/index.m3u8" type="application/x-mpegURL"></video>'),
  "/no-media.html": page("Nothing to see", "<p>Only text here.</p>"),
  "/gone-media.html": page("Gone clip", '<video src="/media/gone.mp4"></video>'),
  "/truncated.html": page("Truncated clip", '<video src="/media/truncated.mp4"></video>'),
  "/stalled.html": page("Stalled clip", '<video src="/media/stalled.mp4"></video>'),
  // 127.0.0.2 is loopback too, but not the host the tests trust: the service must not fetch it.
  "/private-media.html": page("Private clip", '<video src="http://127.0.0.2:9/clip.mp4"></video>'),
  "/members.html": page("Members clip", '<video src="/members/clip.mp4"></video>'),
  "/two-videos.html": page(
    "Two clips",
    '<video src="/media/clip.mp4"></video><p>and</p><video src="/media/short.mp4"></video>',
  ),
  "/tail-index.html": page("Index at the end", '<video src="/media/tail.mp4"></video>'),
  "/tail-index-norange.html": page("Index at the end, no Range", '<video src="/norange/tail.mp4"></video>'),
  "/hangup-norange.html": page("Hang-up, no Range", '<video src="/norange/hangup.mp4"></video>'),
  "/hangup-ranged.html": page("Hang-up, Range", '<video src="/media/hangup.mp4"></video>'),
  "/garbage.html": page("Garbage after a valid start", '<video src="/media/garbage.mp4"></video>'),
  "/subtitled.html": page(
    "Subtitled clip",
    '<video src="/media/clip.mp4"><track kind="subtitles" srclang="en" label="English" src="/media/en.vtt"></video>',
  ),
};

// yt-dlp's YouTube extractor says this when YouTube wants a signed-in browser (with a plain
// apostrophe: a reason phrase is Latin-1). yt-dlp prints an HTTP error's reason phrase, so a page
// answered with it makes the real yt-dlp report the bot check from any site.
const botCheckMessage =
  "Sign in to confirm you're not a bot. Use --cookies-from-browser or --cookies for the authentication";

const membersOnly = (urlPath: string) => urlPath === "/members.html" || urlPath.startsWith("/members/");

function hasMembersCookie(req: IncomingMessage): boolean {
  return (req.headers.cookie ?? "").split(/;\s*/).includes(`${membersCookie.name}=${membersCookie.value}`);
}

const webVtt = `WEBVTT

00:00:00.000 --> 00:00:01.500
${subtitleCues[0]}

00:00:01.500 --> 00:00:03.000
${subtitleCues[1]}
`;

// yt-dlp takes only absolute URLs from JSON-LD, so the page is made once the port is known.
// contentSize is the one size the generic extractor reads (as the format's filesize).
const jsonLdPage = (origin: string, contentSize: number, file = "clip.mp4", durationSec = clipDurationSec) =>
  page(
    "JSON-LD test clip",
    `<script type="application/ld+json">${
      JSON.stringify({
        "@context": "https://schema.org",
        "@type": "VideoObject",
        name: "JSON-LD test clip",
        duration: `PT${durationSec}S`,
        contentUrl: `${origin}/media/${file}`,
        contentSize: String(contentSize),
        thumbnailUrl: `${origin}/media/poster.jpg`,
      })
    }</script>`,
  );

// Written by hand (not by ffmpeg) so that CODECS is present: yt-dlp then knows the video
// playlist has no sound and merges it with the audio group.
const splitMaster = `#EXTM3U
#EXT-X-VERSION:3
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=150000,RESOLUTION=160x120,CODECS="avc1.42c00b,mp4a.40.2",AUDIO="aud"
v.m3u8
`;

async function makeMedia(dir: string, ffmpeg: string): Promise<void> {
  const ff = (...args: string[]) => run(ffmpeg, ["-nostdin", "-v", "error", "-y", ...args], { cwd: dir });
  await ff(
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=160x120:rate=25",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=44100",
    "-t",
    String(clipDurationSec),
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-g",
    "25",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-b:a",
    "64k",
    "-movflags",
    "+faststart",
    "clip.mp4",
  );
  const hls = ["-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"];
  await Promise.all([
    ff("-i", "clip.mp4", "-frames:v", "1", "poster.jpg"),
    // Without +faststart: the index (moov) after the media, where a reader must seek to find it.
    ff("-i", "clip.mp4", "-c", "copy", "tail.mp4"),
    // Keyframes are a second apart, so a copy cut at 2 s is a clean, different file.
    ff("-i", "clip.mp4", "-t", String(shortClipDurationSec), "-c", "copy", "-movflags", "+faststart", "short.mp4"),
    writeFile(path.join(dir, "en.vtt"), webVtt),
    ff("-i", "clip.mp4", ...hls, "-hls_segment_filename", "hls-%d.ts", "index.m3u8"),
    ff("-i", "clip.mp4", "-map", "0:v", ...hls, "-hls_segment_filename", "v-%d.ts", "v.m3u8"),
    ff("-i", "clip.mp4", "-map", "0:a", ...hls, "-hls_segment_filename", "a-%d.ts", "a.m3u8"),
    writeFile(path.join(dir, "master.m3u8"), splitMaster),
  ]);
}

/**
 * Answers whose links the test chooses (for the egress tests, which point them at a canary):
 *   /redirect?to=<url>               302 to <url>
 *   /crafted.html?video=<url>        a page whose <video> is <url>
 *   /crafted-ld.html?content=<url>   a JSON-LD VideoObject whose contentUrl is <url>
 *   /crafted.m3u8?segment=<url>      an HLS playlist of one segment, <url>
 *   /crafted-master.m3u8?variant=<url>  an HLS master playlist of one variant playlist, <url>
 */
function craftedAnswer(
  urlPath: string,
  query: URLSearchParams,
): { status: number; headers: Record<string, string>; body: string } | null {
  const link = query.get("to") ?? query.get("video") ?? query.get("content") ?? query.get("segment") ??
    query.get("variant") ?? "";
  const html = (body: string) => ({
    status: 200,
    headers: { "content-type": contentTypes[".html"]! },
    body: page("Crafted clip", body),
  });
  switch (urlPath) {
    case "/redirect":
      return { status: 302, headers: { location: link }, body: "" };
    case "/crafted.html":
      return html(
        `<video><source src="${link.replace(/"/g, "&quot;")}" type="${
          link.includes(".m3u8") ? "application/x-mpegURL" : "video/mp4"
        }"></video>`,
      );
    case "/crafted-ld.html":
      return html(
        `<script type="application/ld+json">${
          JSON.stringify({
            "@context": "https://schema.org",
            "@type": "VideoObject",
            name: "Crafted clip",
            contentUrl: link,
          })
        }</script>`,
      );
    case "/crafted.m3u8":
      return {
        status: 200,
        headers: { "content-type": contentTypes[".m3u8"]! },
        body: `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n${link}\n#EXT-X-ENDLIST\n`,
      };
    case "/crafted-master.m3u8":
      return {
        status: 200,
        headers: { "content-type": contentTypes[".m3u8"]! },
        body: `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\n${link}\n`,
      };
    default:
      return null;
  }
}

/** Maps a request path to a file of the temp dir; the served tree is flat. */
const routes: Record<string, string> = {
  "/media/clip.mp4": "clip.mp4",
  "/members/clip.mp4": "clip.mp4",
  "/media/poster.jpg": "poster.jpg",
  "/media/short.mp4": "short.mp4",
  "/media/en.vtt": "en.vtt",
  "/media/tail.mp4": "tail.mp4",
  "/media/long.mp4": "long.mp4",
  "/hls/index.m3u8": "index.m3u8",
  "/split/master.m3u8": "master.m3u8",
  "/split/v.m3u8": "v.m3u8",
  "/split/a.m3u8": "a.m3u8",
};

function fileFor(urlPath: string, xVideo: string): string | null {
  if (routes[urlPath]) return routes[urlPath];
  // X's video CDN (video.twimg.com mapped here with ORIGIN_OVERRIDES): every MP4 variant a recorded post names is the
  // clip, so that a relayed X video plays.
  if (/^\/amplify_video\/\d+\/vid\/\d+x\d+\/\w+\.mp4$/.test(urlPath)) return xVideo;
  const segment = /^\/(hls|split)\/((?:hls|v|a)-\d+\.ts)$/.exec(urlPath);
  return segment ? segment[2]! : null;
}

function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") return { start: Math.max(0, size - Number(match[2])), end: size - 1 };
  return { start: Number(match[1]), end: match[2] === "" ? size - 1 : Math.min(size - 1, Number(match[2])) };
}

/**
 * How a file is served wrong on purpose. `truncate`: half of it, then a hang-up, and 503 for the
 * rest; `stall`: half, then silence; `hangup`: every answer that starts before the half hangs up
 * there (a Range request past it gets its bytes); `garbage`: the file's first half, then
 * pseudo-random bytes in place of the rest.
 */
type Breakage = "none" | "truncate" | "stall" | "hangup" | "garbage";

/** Deterministic noise for `garbage`, the same bytes at the same offset on every request. */
function noise(start: number, end: number): Buffer {
  const bytes = Buffer.alloc(end - start + 1);
  for (let offset = start; offset <= end; offset += 1) {
    let x = Math.imul(offset ^ 0x9e3779b9, 0x85ebca6b);
    x ^= x >>> 13;
    bytes[offset - start] = Math.imul(x, 0xc2b2ae35) >>> 24;
  }
  return bytes;
}

/** `ranges: false` plays a server that ignores Range: always 200 and the whole file, no Accept-Ranges. */
async function serveFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: string,
  breakage: Breakage,
  ranges = true,
): Promise<void> {
  const { size } = await stat(file);
  const range = ranges ? parseRange(req.headers.range, size) : null;
  if (range && range.start >= size) {
    res.writeHead(416, { "content-range": `bytes */${size}` }).end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const half = Math.floor(size / 2);
  if (breakage === "truncate" && start >= half) {
    res.writeHead(503, { "content-type": "text/plain" }).end("broken on purpose");
    return;
  }
  res.writeHead(range ? 206 : 200, {
    "content-type": contentTypes[path.extname(file)] ?? "application/octet-stream",
    "content-length": String(end - start + 1),
    ...(ranges ? { "accept-ranges": "bytes" } : {}),
    ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  if (breakage === "garbage") {
    if (start < half) res.write(await readPart(file, start, Math.min(end, half - 1)));
    if (end >= half) res.write(noise(Math.max(start, half), end));
    res.end();
    return;
  }
  const breaks = breakage === "truncate" || breakage === "stall" || (breakage === "hangup" && start < half);
  const sendEnd = breaks ? Math.min(end, half - 1) : end;
  const stream = createReadStream(file, { start, end: sendEnd });
  stream.pipe(res, { end: false });
  stream.on("end", () => {
    if (!breaks) res.end();
    else if (breakage !== "stall") res.destroy();
    // "stall": keep the connection open and silent; the client has to time out.
  });
}

async function readPart(file: string, start: number, end: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(file, { start, end })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The media paths served wrong on purpose: the file, how it breaks, and whether Range is honoured. */
const brokenMedia: Record<string, { file: string; breakage: Breakage; ranges: boolean }> = {
  "/media/truncated.mp4": { file: "clip.mp4", breakage: "truncate", ranges: true },
  "/media/stalled.mp4": { file: "clip.mp4", breakage: "stall", ranges: true },
  "/media/hangup.mp4": { file: "clip.mp4", breakage: "hangup", ranges: true },
  "/media/garbage.mp4": { file: "clip.mp4", breakage: "garbage", ranges: true },
  "/norange/hangup.mp4": { file: "clip.mp4", breakage: "hangup", ranges: false },
  "/norange/tail.mp4": { file: "tail.mp4", breakage: "none", ranges: false },
};

/**
 * An RSS feed of `entries` items, each linking to the progressive page as a post of its own
 * (`?entry=<n>`): yt-dlp's generic extractor reads a feed as a playlist of its links.
 */
function feedOf(origin: string, entries: number): string {
  const items = Array.from(
    { length: entries },
    // A guid, as feeds have: yt-dlp smuggles it into the entry's link (#__youtubedl_smuggle=...).
    (_, at) =>
      `<item><title>Clip ${at + 1}</title><link>${origin}/progressive.html?entry=${at + 1}</link><guid>clip-${
        at + 1
      }</guid></item>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>Clips</title><link>${origin}/</link>` +
    `<description>Every clip</description>${items.join("")}</channel></rss>`;
}

/**
 * The long video, for clips: `longDurationSec` of H.264 with a key frame each second, and AAC.
 * X's video CDN then serves it for every recorded post's MP4, as a relayed X video to cut.
 */
async function makeLongVideo(dir: string, ffmpeg: string): Promise<number> {
  await run(ffmpeg, [
    ...["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-f", "lavfi"],
    ...["-i", "sine=frequency=440:sample_rate=44100", "-t", String(longDurationSec), "-c:v", "libx264"],
    ...["-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k"],
    ...["-movflags", "+faststart", "long.mp4"],
  ], { cwd: dir });
  return (await stat(path.join(dir, "long.mp4"))).size;
}

export async function startMediaSite(options: { ffmpegPath?: string; long?: boolean } = {}): Promise<MediaSite> {
  const dir = await mkdtemp(path.join(tmpdir(), "media-site-"));
  let longBytes = 0;
  try {
    await makeMedia(dir, options.ffmpegPath ?? "ffmpeg");
    if (options.long) longBytes = await makeLongVideo(dir, options.ffmpegPath ?? "ffmpeg");
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const xVideo = options.long ? "long.mp4" : "clip.mp4";
  const clipBytes = (await stat(path.join(dir, "clip.mp4"))).size;
  const requestLog: LoggedRequest[] = [];
  const growingFeed = { entries: 0 };
  const server = createServer((req, res) => {
    const { pathname: urlPath, search, searchParams } = new URL(req.url ?? "/", "http://site");
    requestLog.push({
      path: urlPath,
      search,
      userAgent: req.headers["user-agent"] ?? null,
      referer: req.headers.referer ?? null,
      range: req.headers.range ?? null,
      cookie: req.headers.cookie ?? null,
    });
    // A page asked with `wait` answers that much later, as a busy site's does.
    const waitMs = Number(searchParams.get("wait") ?? "0");
    if (waitMs > 0) setTimeout(() => answer(req, res, urlPath), waitMs);
    else answer(req, res, urlPath);
  });
  const answer = (req: IncomingMessage, res: ServerResponse, urlPath: string) => {
    const crafted = craftedAnswer(urlPath, new URL(req.url ?? "/", origin).searchParams);
    if (crafted !== null) {
      res.writeHead(crafted.status, crafted.headers).end(crafted.body);
      return;
    }
    if (urlPath === "/feed.xml" || urlPath === "/growing-feed.xml") {
      const asked = Number(new URL(req.url ?? "/", origin).searchParams.get("entries") ?? "3");
      const entries = urlPath === "/feed.xml" ? asked : growingFeed.entries;
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(feedOf(origin, entries));
      return;
    }
    if (urlPath === "/rate-limited.html") {
      res.writeHead(429, { "content-type": "text/plain", "retry-after": "3600" }).end("slow down");
      return;
    }
    if (urlPath === "/bot-check.html") {
      res.writeHead(403, botCheckMessage, { "content-type": "text/plain" }).end("bot check");
      return;
    }
    if (urlPath === "/empty-feed.rss") {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(emptyFeed(origin));
      return;
    }
    if (membersOnly(urlPath) && !hasMembersCookie(req)) {
      res.writeHead(403, { "content-type": "text/plain" }).end("members only");
      return;
    }
    const html = urlPath === "/json-ld.html"
      ? jsonLdPage(origin, clipBytes)
      : urlPath === "/long.html" && options.long
      ? jsonLdPage(origin, longBytes, "long.mp4", longDurationSec)
      : pages[urlPath];
    if (html !== undefined) {
      res.writeHead(200, { "content-type": contentTypes[".html"]! }).end(html);
      return;
    }
    const broken = brokenMedia[urlPath];
    const file = broken?.file ?? fileFor(urlPath, xVideo);
    if (file === null) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    serveFile(req, res, path.join(dir, file), broken?.breakage ?? "none", broken?.ranges).catch(() => res.destroy());
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    host: `127.0.0.1:${port}`,
    pages: {
      progressive: `${origin}/progressive.html`,
      jsonLd: `${origin}/json-ld.html`,
      split: `${origin}/split.html`,
      hls: `${origin}/hls.html`,
      noMedia: `${origin}/no-media.html`,
      emptyFeed: `${origin}/empty-feed.rss`,
      missing: `${origin}/missing.html`,
      goneMedia: `${origin}/gone-media.html`,
      truncatedMedia: `${origin}/truncated.html`,
      stalledMedia: `${origin}/stalled.html`,
      privateMedia: `${origin}/private-media.html`,
      rateLimited: `${origin}/rate-limited.html`,
      botCheck: `${origin}/bot-check.html`,
      members: `${origin}/members.html`,
      twoVideos: `${origin}/two-videos.html`,
      subtitled: `${origin}/subtitled.html`,
      tailIndex: `${origin}/tail-index.html`,
      tailIndexNoRange: `${origin}/tail-index-norange.html`,
      hangupNoRange: `${origin}/hangup-norange.html`,
      hangupRanged: `${origin}/hangup-ranged.html`,
      garbage: `${origin}/garbage.html`,
      long: `${origin}/long.html`,
      feed: (entries: number) => `${origin}/feed.xml?entries=${entries}`,
      slow: (n: number, waitMs: number) => `${origin}/progressive.html?entry=${n}&wait=${waitMs}`,
      growingFeed: `${origin}/growing-feed.xml`,
    },
    growingFeed,
    mp4Url: `${origin}/media/clip.mp4`,
    mp4Bytes: clipBytes,
    requestLog,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
