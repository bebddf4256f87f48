// A local video site whose media break the cuts of issue 32 (item 5) and issue 43 (item 3): a file
// that hangs up once and answers the retry from its start (MPEG-TS on a page that gives its length
// and on one that does not, and MP4), a video without sound, a source without Content-Length that sends its file again on
// every reconnect, an honest slow source with keyframes far apart, and HLS of segments written one
// by one (their MPEG-TS continuity counters restart). Pages are ones yt-dlp's generic extractor
// reads; add the site's `host` to the extra page hosts.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Length of the MPEG-TS file, the slow file and the segmented HLS, in seconds. */
export const hostileDurationSec = 20;
/** Keyframes of the slow file are this far apart: its fragments are this long. */
const slowKeyframeSec = 10;
/** How long the slow source takes to send the whole slow file: each fragment 4 s, twice the tests' idle cut. */
const slowSendSec = 8;

export interface HostileSite {
  origin: string;
  host: string;
  pages: {
    /** A JSON-LD page (so yt-dlp gives the length) of an MPEG-TS file that hangs up once at 55 % and answers the retry from its start, ignoring Range. */
    hangupOnce: string;
    /** The same file on a page that gives no length, only its type with codecs (so `audio=m4a` may copy its AAC). */
    hangupOnceBare: string;
    /** `<video src>` of the same clip as MP4 (its index at the start), which hangs up once and answers the retry from its start. */
    hangupOnceMp4: string;
    /** An MPEG-TS file (its type with codecs) sent without Content-Length and cut off after its end, every time from its start: every reconnect gets it again. */
    loop: string;
    /** `<video src>` of an MP4 with keyframes 10 s apart, sent steadily at a rate that takes 16 s for the whole (Range honoured). */
    slow: string;
    /** HLS of MPEG-TS segments written by `ffmpeg -f segment`, whose continuity counters restart per segment. */
    segments: string;
    /** `<video src>` of an MP4 with a picture and no sound. */
    silent: string;
  };
  /** Makes ffmpeg's next request for a hang-up file (MPEG-TS or MP4) hang up at 55 % (one per download). */
  armHangup(): void;
  /** Requests so far for a media path (for example `/media/loop.ts`). */
  requests(mediaPath: string): number;
  close(): Promise<void>;
}

async function makeMedia(dir: string): Promise<void> {
  const ff = (...args: string[]) => run("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args], { cwd: dir });
  const sources = [
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=160x120:rate=25",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=44100",
    "-t",
    String(hostileDurationSec),
  ];
  // The discontinuity flag on each stream's first packet: a player that joins the file from its
  // start again (as after a retry that ignored Range) reads on without a broken counter, as the
  // source of the report did; what it appends is then only told by its timestamps.
  await ff(
    ...sources,
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
    "-mpegts_flags",
    "+initial_discontinuity",
    "-f",
    "mpegts",
    "clip.ts",
  );
  await Promise.all([
    ff(
      ...sources,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-g",
      String(25 * slowKeyframeSec),
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-b:a",
      "64k",
      "-movflags",
      "+faststart",
      "slow.mp4",
    ),
    ff("-i", "clip.ts", "-map", "0:v", "-c", "copy", "-movflags", "+faststart", "silent.mp4"),
    ff("-i", "clip.ts", "-c", "copy", "-movflags", "+faststart", "clip.mp4"),
    ff(
      "-i",
      "clip.ts",
      "-c",
      "copy",
      "-f",
      "segment",
      "-segment_time",
      "2",
      "-segment_list",
      "segments.m3u8",
      "-segment_list_type",
      "m3u8",
      "segment-%d.ts",
    ),
  ]);
}

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** `<video>` of an MPEG-TS file with its codecs in its type: yt-dlp then knows its sound is AAC. */
const tsSource = (src: string) =>
  `<video><source src="${src}" type='video/mp2t; codecs="avc1.42E01E, mp4a.40.2"'></video>`;

function pagesFor(origin: string): Record<string, string> {
  const ld = JSON.stringify({
    "@context": "https://schema.org",
    "@type": "VideoObject",
    name: "Hang-up once",
    duration: `PT${hostileDurationSec}S`,
    contentUrl: `${origin}/media/hangup-once.ts`,
  });
  return {
    "/hangup-once.html": page("Hang-up once", `<script type="application/ld+json">${ld}</script>`),
    "/hangup-once-bare.html": page("Hang-up once, no length", tsSource("/media/hangup-once.ts")),
    "/hangup-once-mp4.html": page("Hang-up once, MP4", '<video src="/media/hangup-once.mp4"></video>'),
    "/loop.html": page("Loop", tsSource("/media/loop.ts")),
    "/slow.html": page("Slow", '<video src="/media/slow.mp4"></video>'),
    "/silent.html": page("Silent", '<video src="/media/silent.mp4"></video>'),
    "/segments.html": page("Segments", '<video><source src="/seg/segments.m3u8" type="application/x-mpegURL"></video>'),
  };
}

/** Sends `bytes` at `bytesPerSec` in small pieces, steadily, then ends. */
function sendSteadily(res: ServerResponse, bytes: Buffer, bytesPerSec: number): void {
  const piece = 4096;
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(bytes.subarray(at, at + piece));
    at += piece;
    if (at >= bytes.byteLength) {
      clearInterval(timer);
      res.end();
    }
  }, (piece / bytesPerSec) * 1000);
}

function ranged(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = /^bytes=(\d+)-(\d*)$/.exec(header ?? "");
  return match ? { start: Number(match[1]), end: match[2] ? Math.min(size - 1, Number(match[2])) : size - 1 } : null;
}

export async function startHostileSite(): Promise<HostileSite> {
  const dir = await mkdtemp(path.join(tmpdir(), "hostile-media-"));
  await makeMedia(dir);
  const files = Object.fromEntries(
    await Promise.all((await readdir(dir)).map(async (name) => [name, await readFile(path.join(dir, name))] as const)),
  );
  const counts = new Map<string, number>();
  let armed = false;
  const server = createServer((req, res) => {
    const urlPath = new URL(req.url ?? "/", "http://site").pathname;
    counts.set(urlPath, (counts.get(urlPath) ?? 0) + 1);
    const html = pages[urlPath];
    if (html !== undefined) return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    const ts = files["clip.ts"]!;
    const hangupOnce = /^\/media\/hangup-once\.(ts|mp4)$/.exec(urlPath);
    if (hangupOnce) {
      const file = files[`clip.${hangupOnce[1]}`]!;
      res.writeHead(200, {
        "content-type": hangupOnce[1] === "ts" ? "video/mp2t" : "video/mp4",
        "content-length": String(file.byteLength),
      });
      // Only ffmpeg asks with Range (from 0); yt-dlp's look at the link does not.
      if (!armed || req.headers.range === undefined) return void res.end(file);
      armed = false;
      res.write(file.subarray(0, Math.floor(file.byteLength * 0.55)));
      return void setTimeout(() => res.destroy(), 50);
    }
    switch (urlPath) {
      case "/media/loop.ts":
        res.writeHead(200, { "content-type": "video/mp2t" });
        res.write(ts);
        return void setTimeout(() => res.destroy(), 50);
      case "/media/silent.mp4":
        return void res.writeHead(200, {
          "content-type": "video/mp4",
          "content-length": String(files["silent.mp4"]!.byteLength),
        })
          .end(files["silent.mp4"]);
      case "/media/slow.mp4": {
        const slow = files["slow.mp4"]!;
        const range = ranged(req.headers.range, slow.byteLength);
        const { start, end } = range ?? { start: 0, end: slow.byteLength - 1 };
        res.writeHead(range ? 206 : 200, {
          "content-type": "video/mp4",
          "content-length": String(end - start + 1),
          "accept-ranges": "bytes",
          ...(range ? { "content-range": `bytes ${start}-${end}/${slow.byteLength}` } : {}),
        });
        return sendSteadily(res, slow.subarray(start, end + 1), slow.byteLength / slowSendSec);
      }
    }
    const segment = /^\/seg\/(segments\.m3u8|segment-\d+\.ts)$/.exec(urlPath);
    const file = segment ? files[segment[1]!] : undefined;
    if (file === undefined) return void res.writeHead(404).end();
    res.writeHead(200, {
      "content-type": urlPath.endsWith(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t",
      "content-length": String(file.byteLength),
    }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const pages = pagesFor(origin);
  return {
    origin,
    host: `127.0.0.1:${port}`,
    pages: {
      hangupOnce: `${origin}/hangup-once.html`,
      hangupOnceBare: `${origin}/hangup-once-bare.html`,
      hangupOnceMp4: `${origin}/hangup-once-mp4.html`,
      loop: `${origin}/loop.html`,
      slow: `${origin}/slow.html`,
      segments: `${origin}/segments.html`,
      silent: `${origin}/silent.html`,
    },
    armHangup: () => void (armed = true),
    requests: (mediaPath) => counts.get(mediaPath) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
