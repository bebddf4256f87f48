// A local audio site for the audio outputs: an audio-first page as SoundCloud's are to yt-dlp (a
// track offered in more than one codec, no picture), read by yt-dlp's generic extractor. Add
// its `host` to the extra page hosts. The track is made by ffmpeg at start-up: AAC at 96 kbps in
// M4A, the same sound as MP3 at 128 kbps, and a video with each of them in MPEG-TS (the container
// says nothing of the sound's codec).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export const trackDurationSec = 4;
export const aacBitRate = 96_000;

export interface AudioSite {
  host: string;
  pages: {
    /** `<audio>` with two sources: the M4A (AAC) and the MP3. */
    track: string;
    /** `<audio>` of the MP3 alone: no AAC to copy. */
    mp3Only: string;
    /** The M4A as a JSON-LD AudioObject, which gives yt-dlp the track's length, as SoundCloud's API does. */
    described: string;
    /** `<video>` of an MPEG-TS file whose sound is AAC (ADTS), its codec named nowhere but in the file. */
    tsAac: string;
    /** `<video>` of an MPEG-TS file whose sound is MP3. */
    tsMp3: string;
  };
  /** The M4A file's bytes, to compare a copy with. */
  m4a: Buffer;
  close(): Promise<void>;
}

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
// yt-dlp takes only absolute URLs from JSON-LD, so the pages are made once the port is known.
const pagesAt = (origin: string): Record<string, string> => ({
  "/track.html": page(
    "A track",
    '<audio controls><source src="/track.m4a" type="audio/mp4"><source src="/track.mp3" type="audio/mpeg"></audio>',
  ),
  "/mp3-only.html": page("An MP3 track", '<audio controls src="/track.mp3"></audio>'),
  "/ts-aac.html": page("A broadcast with AAC", '<video controls src="/aac.ts"></video>'),
  "/ts-mp3.html": page("A broadcast with MP3", '<video controls src="/mp3.ts"></video>'),
  "/described.html": page(
    "A described track",
    `<script type="application/ld+json">${
      JSON.stringify({
        "@context": "https://schema.org",
        "@type": "AudioObject",
        name: "A described track",
        duration: `PT${trackDurationSec}S`,
        contentUrl: `${origin}/track.m4a`,
        encodingFormat: "audio/mp4",
      })
    }</script>`,
  ),
});
const types: Record<string, string> = { ".m4a": "audio/mp4", ".mp3": "audio/mpeg", ".ts": "video/mp2t" };
const video = ["-f", "lavfi", "-i", `testsrc=size=160x120:rate=25:duration=${trackDurationSec}`];

export async function startAudioSite(): Promise<AudioSite> {
  const dir = await mkdtemp(path.join(tmpdir(), "audio-site-"));
  const ff = (...args: string[]) =>
    promisify(execFile)("ffmpeg", [
      "-nostdin",
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=440:sample_rate=44100:duration=${trackDurationSec}`,
      ...args,
    ], { cwd: dir });
  await Promise.all([
    ff("-c:a", "aac", "-b:a", String(aacBitRate), "-movflags", "+faststart", "track.m4a"),
    ff("-c:a", "libmp3lame", "-b:a", "128k", "track.mp3"),
    ff(...video, "-c:v", "libx264", "-c:a", "aac", "-b:a", String(aacBitRate), "-f", "mpegts", "aac.ts"),
    ff(...video, "-c:v", "libx264", "-c:a", "libmp3lame", "-f", "mpegts", "mp3.ts"),
  ]);
  const files = {
    "/track.m4a": await readFile(path.join(dir, "track.m4a")),
    "/track.mp3": await readFile(path.join(dir, "track.mp3")),
    "/aac.ts": await readFile(path.join(dir, "aac.ts")),
    "/mp3.ts": await readFile(path.join(dir, "mp3.ts")),
  } as Record<string, Buffer>;
  let pages: Record<string, string> = {};
  const server = http.createServer((req, res) => {
    const urlPath = new URL(req.url ?? "/", "http://site").pathname;
    if (pages[urlPath]) return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(pages[urlPath]);
    const file = files[urlPath];
    if (!file) return res.writeHead(404).end();
    // Range, as a CDN honours it: ffmpeg seeks in an M4A.
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), file.length - 1) : file.length - 1;
    res.writeHead(range ? 206 : 200, {
      "content-type": types[path.extname(urlPath)]!,
      "content-length": String(end - start + 1),
      "accept-ranges": "bytes",
      ...(range ? { "content-range": `bytes ${start}-${end}/${file.length}` } : {}),
    });
    res.end(req.method === "HEAD" ? undefined : file.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  pages = pagesAt(`http://${host}`);
  return {
    host,
    pages: {
      track: `http://${host}/track.html`,
      mp3Only: `http://${host}/mp3-only.html`,
      described: `http://${host}/described.html`,
      tsAac: `http://${host}/ts-aac.html`,
      tsMp3: `http://${host}/ts-mp3.html`,
    },
    m4a: files["/track.m4a"]!,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
