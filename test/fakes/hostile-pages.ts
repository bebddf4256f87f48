// Pages anyone may host and hand the service as a post (yt-dlp's generic extractor reads them, as
// it reads a Reddit link post's target): pages that never end, a very large one, one listing
// 200 000 videos, one that trickles forever, and a 404 for every other path (which is how the
// links whose path or query reads like a platform's refusal are answered).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pour } from "../helpers/pour.ts";

export interface HostilePages {
  /** host:port, for EXTRA_PAGE_HOSTS. */
  host: string;
  origin: string;
  pages: {
    /** Chunked HTML without end, as fast as it is read. */
    endless: string;
    /** 400 MB of HTML, with its Content-Length. */
    huge: string;
    /** 200 000 <video> elements, each with its poster (about 21 MB). */
    manyVideos: string;
    /** A few bytes every 100 ms, forever. */
    trickle: string;
  };
  /** How many bytes the server has written for each path. */
  sent(path: string): number;
  close(): Promise<void>;
}

const filler = Buffer.from(`<p>${"lorem ipsum dolor sit amet ".repeat(2400)}</p>\n`);

export async function startHostilePages(): Promise<HostilePages> {
  const sent = new Map<string, number>();
  const counter = (path: string) => (bytes: number) => sent.set(path, (sent.get(path) ?? 0) + bytes);
  const manyVideos = Buffer.from(
    `<!DOCTYPE html><html><head><title>Every clip</title></head><body>\n` +
      Array.from({ length: 200_000 }, (_, i) => {
        const n = String(i).padStart(6, "0");
        return `<video src="/media/clips/clip-${n}.mp4" poster="/media/posters/clip-${n}.jpg" controls></video>\n`;
      }).join("") +
      `</body></html>\n`,
  );
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const count = counter(path);
    const html = { "content-type": "text/html; charset=utf-8" };
    if (path === "/endless.html") {
      res.writeHead(200, html);
      return res.write(
        "<!DOCTYPE html><html><head><title>Endless</title></head><body>\n",
        () => pour(res, filler, count),
      );
    }
    if (path === "/huge.html") {
      const size = 400 * 1024 * 1024;
      res.writeHead(200, { ...html, "content-length": String(size) });
      return pour(res, filler, count, size);
    }
    if (path === "/many-videos.html") {
      count(manyVideos.length);
      res.writeHead(200, { ...html, "content-length": String(manyVideos.length) });
      return void res.end(manyVideos);
    }
    if (path === "/trickle.html") {
      res.writeHead(200, html);
      const timer = setInterval(() => {
        count(8);
        res.write("<p>.</p>");
      }, 100);
      return void res.once("close", () => clearInterval(timer));
    }
    res.writeHead(404, html).end(
      "<!DOCTYPE html><html><head><title>Not Found</title></head><body>nothing here</body></html>",
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    host: `127.0.0.1:${port}`,
    origin,
    pages: {
      endless: `${origin}/endless.html`,
      huge: `${origin}/huge.html`,
      manyVideos: `${origin}/many-videos.html`,
      trickle: `${origin}/trickle.html`,
    },
    sent: (path) => sent.get(path) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
