// A local stand-in for X's video host (video.twimg.com, reached through ORIGIN_OVERRIDES): the HLS
// playlists and WebVTT caption segments of test/fixtures/upstream/x-hls, each at its path on X's host
// (the query ignored, as X's CDN keys files by path), else 404. Their sources are in that directory's
// PROVENANCE section (test/fixtures/upstream/PROVENANCE.md). Every request is counted by path.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../fixtures/upstream/x-hls", import.meta.url));

/** The HLS masters of the fake posts (test/fakes/x-upstream.ts) that the recordings do not hold. */
export const captionPlaylists = {
  /** English captions X made and Spanish ones the uploader gave. */
  twoLanguages: "https://video.twimg.com/amplify_video/1000000000000000061/pl/Bilingual0000000.m3u8?tag=14",
  /** English captions whose one segment is on 169.254.169.254, a cloud's metadata service. */
  offHost: "https://video.twimg.com/amplify_video/1000000000000000071/pl/OffHost000000000.m3u8?tag=14",
} as const;

export interface FakeXVideoHost {
  origin: string;
  /** ORIGIN_OVERRIDES sending X's video host here. */
  originOverrides: string;
  /** Requests seen on paths starting with `prefix` (all of them without one). */
  calls(prefix?: string): number;
  close(): Promise<void>;
}

export async function startFakeXVideoHost(): Promise<FakeXVideoHost> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? "/", "http://fake");
    seen.push(pathname);
    const file = path.join(root, path.normalize(pathname));
    if (!file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      return res.writeHead(404).end();
    }
    const type = file.endsWith(".vtt") ? "text/vtt" : "application/vnd.apple.mpegurl";
    res.writeHead(200, { "content-type": type }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    originOverrides: `video.twimg.com=${origin}`,
    calls: (prefix = "/") => seen.filter((each) => each.startsWith(prefix)).length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
