// ffmpeg's HLS reader opens whatever a playlist names, with any protocol its whitelist holds:
// ffmpeg 5.1 opens a variant written as tcp://, tls:// or httpproxy://, and a segment written as
// httpproxy://HOST:PORT/x, itself, outside the egress gate (measured). The whitelist cannot shut
// them out, since http needs tcp and https through the gate needs httpproxy. So ffmpeg reads no
// playlist from the network: the service fetches each one through the gate, refuses it when a
// link in it is not http(s), and the gate serves ffmpeg the checked copy, every link absolute and
// a master's playlists replaced by their checked copies (egress-gate.ts, servePlaylist). What the
// copies name for ffmpeg to fetch (segments, keys, init sections) is http(s), through the gate.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import type { FfmpegInput } from "./ffmpeg.ts";
import type { UpstreamClient } from "../net/relay-upstream.ts";
import { boundedText } from "../util/bounded-text.ts";

/** Fetches one playlist through the gate, redirects followed: its final URL and its text. */
export type FetchPlaylist = (url: URL, headers: Record<string, string>) => Promise<{ url: URL; text: string }>;

/** A master playlist names media playlists, which name nothing further. */
const MAX_DEPTH = 2;
/** Playlists a master may name (variants and renditions); more is no playlist a page needs. */
const MAX_PLAYLISTS = 64;

const URI_ATTRIBUTE = /(\bURI=")([^"]*)(")/g;

/**
 * `text` with each link (a line of its own, or a URI="..." attribute) resolved against `base`
 * and passed through `place`, which says what to write instead. A link that is not http(s)
 * after resolving is refused: no platform needs one, and ffmpeg would open it itself.
 */
export async function rewritePlaylist(
  text: string,
  base: URL,
  place: (link: URL, isPlaylist: boolean) => Promise<string>,
): Promise<string> {
  const lines = text.split(/\r?\n/);
  const isMaster = lines.some((line) => line.startsWith("#EXT-X-STREAM-INF"));
  const out: string[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (!trimmed.startsWith("#")) {
      // In a master, a link line is a variant playlist; in a media playlist, a segment.
      out.push(await place(checkedLink(trimmed, base), isMaster));
      continue;
    }
    let rewritten = "";
    let last = 0;
    for (const match of trimmed.matchAll(URI_ATTRIBUTE)) {
      // A master's EXT-X-MEDIA names a rendition playlist; a media playlist's URIs are keys and init sections.
      const link = await place(checkedLink(match[2]!, base), isMaster && trimmed.startsWith("#EXT-X-MEDIA:"));
      rewritten += `${trimmed.slice(last, match.index)}${match[1]}${link}${match[3]}`;
      last = match.index! + match[0].length;
    }
    out.push(rewritten + trimmed.slice(last));
  }
  return `${out.join("\n")}\n`;
}

/** `text` resolved against `base`; 403 `host_not_allowed` unless it is an http(s) link. */
export function checkedLink(text: string, base: URL): URL {
  const link = URL.parse(text, base);
  if (link !== null && (link.protocol === "http:" || link.protocol === "https:")) return link;
  const shown = link === null ? text.slice(0, 100) : `${link.protocol}//${link.host}`;
  throw new ApiError("host_not_allowed", `The media's playlist links to ${shown}, which is not an http(s) link.`);
}

/**
 * The inputs with each HLS one's playlist fetched, checked and handed to `serve`, which keeps it
 * and says the URL ffmpeg reads it at; other inputs pass as they are.
 */
export async function checkPlaylists(
  inputs: readonly FfmpegInput[],
  fetchPlaylist: FetchPlaylist,
  serve: (playlist: string) => string,
): Promise<FfmpegInput[]> {
  let count = 0;
  const check = async (url: URL, headers: Record<string, string>, depth: number): Promise<string> => {
    if (++count > MAX_PLAYLISTS) {
      throw upstreamFailed(`The media's playlists name more than ${MAX_PLAYLISTS} playlists.`);
    }
    const fetched = await fetchPlaylist(url, headers);
    if (!fetched.text.trimStart().startsWith("#EXTM3U")) {
      throw upstreamFailed("The media's playlist is not an HLS playlist.");
    }
    const text = await rewritePlaylist(fetched.text, fetched.url, async (link, isPlaylist) => {
      if (!isPlaylist) return link.href;
      if (depth >= MAX_DEPTH) {
        throw upstreamFailed("The media's playlists nest deeper than a master and its media playlists.");
      }
      return check(link, headers, depth + 1);
    });
    return serve(text);
  };
  return Promise.all(
    inputs.map(async (
      input,
    ) => (input.hls
      ? { ...input, url: await check(new URL(input.url), { ...input.headers, ...cookieHeader(input) }, 1) }
      : input)
    ),
  );
}

/** The input's cookies (ffmpeg's `-cookies` lines, `name=value; domain=D; path=P`) whose domain is its host's, as a Cookie header. */
function cookieHeader(input: FfmpegInput): Record<string, string> {
  const host = new URL(input.url).host;
  const pairs = (input.cookies ?? [])
    .map((line) => ({
      pair: line.split(";")[0]!,
      domain: /;\s*domain=([^;]*)/i.exec(line)?.[1]?.replace(/^\./, "") ?? "",
    }))
    .filter(({ domain }) => domain !== "" && (host === domain || host.endsWith(`.${domain}`)))
    .map(({ pair }) => pair);
  return pairs.length === 0 ? {} : { cookie: pairs.join("; ") };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Larger than any playlist of a video of hours (a few hundred KB of links). */
const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;
const playlistTooLarge = () =>
  upstreamFailed(`The media's playlist is larger than ${MAX_PLAYLIST_BYTES / 1024 / 1024} MiB.`);

/** FetchPlaylist over `upstream`, a client whose connections go through the gate session. */
export function playlistFetcher(upstream: UpstreamClient, signal: AbortSignal): FetchPlaylist {
  return async (start, headers) => {
    for (let url = start, hops = 0;; hops++) {
      const response = await upstream({
        url,
        method: "GET",
        headers: { "accept-encoding": "identity", ...headers },
        signal,
      });
      const location = response.headers.get("location");
      if (REDIRECT_STATUSES.has(response.status) && location !== null && hops < MAX_REDIRECTS) {
        await response.body?.cancel();
        url = checkedLink(location, url);
        continue;
      }
      if (response.status !== 200 || response.body === null) {
        await response.body?.cancel();
        if (response.status === 404) {
          throw new ApiError(
            "not_found",
            "The media's playlist is gone from the source; fetch the post again for fresh links.",
          );
        }
        throw upstreamFailed(`The media's playlist could not be fetched (status ${response.status}); try again later.`);
      }
      return { url, text: await boundedText(response.body, MAX_PLAYLIST_BYTES, playlistTooLarge) };
    }
  };
}
