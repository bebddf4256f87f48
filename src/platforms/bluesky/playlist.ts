// Which stream of an HLS master playlist to remux: the one of the highest bandwidth. Pure.
import { upstreamFailed } from "../../http/problem.ts";

/**
 * The media playlist of the master's highest-bandwidth stream, resolved against `base`; a media
 * playlist (no `#EXT-X-STREAM-INF`) is its own best stream.
 */
export function bestVariant(text: string, base: URL): URL {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (!lines[0]?.startsWith("#EXTM3U")) {
    throw upstreamFailed("Bluesky's video host answered with something that is not a playlist; try again later.");
  }
  let best: { bandwidth: number; link: string } | null = null;
  for (const [i, line] of lines.entries()) {
    if (!line.startsWith("#EXT-X-STREAM-INF:")) continue;
    const bandwidth = Number(/[:,]BANDWIDTH=(\d+)/.exec(line)?.[1] ?? 0);
    const link = lines.slice(i + 1).find((next) => next !== "" && !next.startsWith("#"));
    if (link !== undefined && (best === null || bandwidth > best.bandwidth)) best = { bandwidth, link };
  }
  return best === null ? base : new URL(best.link, base);
}
