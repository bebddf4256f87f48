// X's live broadcasts and Spaces as yt-dlp's twitter:broadcast and twitter:spaces extractors meet them, on
// 127.0.0.1: an HTTPS server for api.x.com and x.com (the guest token's activation, broadcasts/show.json,
// live_video_stream/status and the AudioSpaceById GraphQL query), under a certificate of a test authority made at
// start-up, and a plain HTTP server for the video host that serves the HLS playlists and segments of short clips made
// by ffmpeg. Built from yt-dlp's extractor code (extractor/twitter.py, extractor/periscope.py; see
// test/fixtures/upstream/PROVENANCE.md, "X's live broadcasts and Spaces"). The service reaches it through
// ORIGIN_OVERRIDES; yt-dlp trusts the authority through `ytdlpPath`, a wrapper of the installed yt-dlp (yt-dlp has no
// option of a CA file: the wrapper has it use the system's store, which SSL_CERT_FILE names).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { makeCertificates, ytdlpTrusting } from "../helpers/test-authority.ts";

const run = promisify(execFile);

/** The broadcast and the Space X holds, by their links. */
export const liveLinks = {
  broadcast: "https://x.com/i/broadcasts/1yNGaQLWpejGj",
  space: "https://twitter.com/i/spaces/1OwxWwQOPlNxQ",
  /** A Space whose replay its host turned off. */
  spaceWithoutReplay: "https://x.com/i/spaces/1vAxRAVQWONJl",
} as const;

/** How long each clip is, in seconds. */
export const clipSeconds = 3;

const apiHosts = ["api.x.com", "x.com"];
const videoHost = "prod-fastly-us-east-1.video.pscp.tv";
/** The guest token the fake hands out; every API call must carry it. */
const guestToken = "1890765432109876543";
/** yt-dlp's web client bearer token (TwitterBaseIE._AUTH): X answers a guest only with a known one. */
const bearerPrefix = "Bearer AAAAAAAAAAAAAAAAAAAAANRILgAAAAAA";

const broadcastId = "1yNGaQLWpejGj";
const broadcastKey = "28_1266954837617565696";
const spaceKey = "28_1666770462040993792";
const replayPath = "/Transcoding/v1/hls/UTmgGKbS/non_transcode/us-east-1/periscope-replay-direct-prod-us-east-1-public";

/** broadcasts/show.json's broadcast, the fields yt-dlp's PeriscopeBaseIE and TwitterBroadcastIE read and their neighbours. */
const broadcast = {
  id: broadcastId,
  media_key: broadcastKey,
  state: "ENDED",
  status: "Live from the test bench",
  user_display_name: "Andrea May Sahouri",
  username: "andreamsahouri",
  twitter_username: "andreamsahouri",
  twitter_user_id: "2873717163",
  created_at_ms: 1590973638000,
  start_ms: 1590973647000,
  end_ms: 1590975647000,
  width: 320,
  height: 240,
  total_watched: 12345,
  total_watching: 0,
  available_for_replay: true,
  language: "en",
  image_url: `https://${videoHost}/thumbnail/${broadcastId}/orig.jpg?token=abc`,
  image_url_small: `https://${videoHost}/thumbnail/${broadcastId}/small.jpg?token=abc`,
};

/** AudioSpaceById's `audioSpace` of a Space that ended and keeps its replay. */
const space = (id: string, replay: boolean) => ({
  metadata: {
    rest_id: id,
    state: "Ended",
    title: "Everybody in: the future of EV charging",
    media_key: spaceKey,
    created_at: 1686254250000,
    started_at: 1686256230000,
    ended_at: "1686259830000",
    is_space_available_for_replay: replay,
    creator_results: {
      result: {
        __typename: "User",
        rest_id: "1234567",
        legacy: {
          name: "Mary Barra",
          screen_name: "mtbarra",
          profile_image_url_https: "https://pbs.twimg.com/profile_images/1/mtbarra_normal.jpg",
        },
      },
    },
  },
  participants: {
    total: 2,
    admins: [{ display_name: "Mary Barra", twitter_screen_name: "mtbarra" }],
    speakers: [{ display_name: "Elon Musk", twitter_screen_name: "elonmusk" }],
    listeners: [],
  },
});

/** live_video_stream/status's answer: where the stream's playlist is. */
const streamStatus = (playlist: string) => ({
  source: { location: playlist, noRedirectPlaybackUrl: playlist, status: "LIVE_PUBLISHED", streamType: "HLS" },
  sessionId: "1a2b3c",
  chatToken: "chat",
  lifecycleToken: "life",
  shareUrl: liveLinks.broadcast,
});

export interface XLive {
  /** The ORIGIN_OVERRIDES value that sends X's API hosts and its video host here. */
  originOverrides: string;
  /** YTDLP_PATH: the installed yt-dlp, trusting the test authority. */
  ytdlpPath: string;
  /** Every request the fake got, in order. */
  requestLog: { host: string; method: string; path: string; guestToken: string | null }[];
  close(): Promise<void>;
}

/** A clip's HLS playlist and MPEG-TS segments in `dir`: video and sound, or sound alone. */
async function makeHls(dir: string, sound: "with-video" | "alone"): Promise<void> {
  await mkdir(dir, { recursive: true });
  const soundIn = ["-f", "lavfi", "-i", `sine=frequency=440:duration=${clipSeconds}`];
  const soundOut = ["-c:a", "aac", "-b:a", "64k"];
  const videoIn = ["-f", "lavfi", "-i", `testsrc2=size=320x240:rate=25:duration=${clipSeconds}`];
  const videoOut = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25"];
  const streams = sound === "alone" ? [...soundIn, ...soundOut] : [...videoIn, ...soundIn, ...videoOut, ...soundOut];
  await run("ffmpeg", [
    "-nostdin",
    "-v",
    "error",
    ...streams,
    "-f",
    "hls",
    "-hls_time",
    "1",
    "-hls_list_size",
    "0",
    "-hls_playlist_type",
    "vod",
    "-hls_segment_filename",
    path.join(dir, "chunk_%d.ts"),
    path.join(dir, "playlist.m3u8"),
  ]);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json;charset=utf-8" });
  res.end(JSON.stringify(body));
}

/** The answer of X's API to one request, as yt-dlp's extractors call it; null for a path it has no answer for. */
function apiAnswer(url: URL, req: IncomingMessage, videoOrigin: string): [number, unknown] | null {
  if (!req.headers.authorization?.startsWith(bearerPrefix)) {
    return [401, { errors: [{ code: 89, message: "Invalid or expired token." }] }];
  }
  if (url.hostname === "api.x.com" && url.pathname === "/1.1/guest/activate.json" && req.method === "POST") {
    return [200, { guest_token: guestToken }];
  }
  if (req.headers["x-guest-token"] !== guestToken) {
    return [403, { errors: [{ code: 239, message: "Bad guest token." }] }];
  }
  if (url.hostname === "api.x.com" && url.pathname === "/1.1/broadcasts/show.json") {
    const ids = url.searchParams.get("ids") ?? "";
    return [200, { broadcasts: ids === broadcastId ? { [broadcastId]: broadcast } : {} }];
  }
  const streamKey = /^\/1\.1\/live_video_stream\/status\/([\w]+)$/.exec(url.pathname)?.[1];
  if (url.hostname === "api.x.com" && streamKey !== undefined) {
    const stream = streamKey === broadcastKey ? "" : streamKey === spaceKey ? "/audio-space" : null;
    if (stream === null) return [404, { errors: [{ code: 34, message: "Sorry, that page does not exist." }] }];
    return [200, streamStatus(`${videoOrigin}${replayPath}${stream}/playlist.m3u8?type=replay`)];
  }
  if (url.hostname === "x.com" && url.pathname === "/i/api/graphql/HPEisOmj1epUNLCWTYhUWw/AudioSpaceById") {
    const id = (JSON.parse(url.searchParams.get("variables") ?? "{}") as { id?: string }).id ?? "";
    const known = [liveLinks.space, liveLinks.spaceWithoutReplay].find((link) => link.endsWith(`/${id}`));
    // X answers an id it does not know with an empty audioSpace.
    if (known === undefined) return [200, { data: { audioSpace: {} } }];
    return [200, { data: { audioSpace: space(id, known === liveLinks.space) } }];
  }
  return null;
}

export async function startXLive(): Promise<XLive> {
  const dir = await mkdtemp(path.join(tmpdir(), "x-live-"));
  const [{ caFile, key, cert }] = await Promise.all([
    makeCertificates(dir, apiHosts, "X live"),
    makeHls(path.join(dir, "broadcast"), "with-video"),
    makeHls(path.join(dir, "space"), "alone"),
  ]);
  const requestLog: XLive["requestLog"] = [];
  const log = (req: IncomingMessage, url: URL) =>
    requestLog.push({
      host: url.hostname,
      method: req.method ?? "GET",
      path: url.pathname,
      guestToken: (req.headers["x-guest-token"] as string | undefined) ?? null,
    });
  let videoOrigin = "";

  const api = createHttpsServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? "/", `https://${req.headers.host}`);
    log(req, url);
    const [status, body] = apiAnswer(url, req, videoOrigin) ?? [404, { errors: [{ code: 34, message: "Not found" }] }];
    json(res, status, body);
  });

  const video = createHttpServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    log(req, url);
    const file = /^(?:\/audio-space)?\/(playlist\.m3u8|chunk_\d+\.ts)$/.exec(url.pathname.slice(replayPath.length));
    if (!url.pathname.startsWith(replayPath) || file === null) {
      res.writeHead(404);
      return void res.end();
    }
    const folder = url.pathname.includes("/audio-space/") ? "space" : "broadcast";
    const bytes = await readFile(path.join(dir, folder, file[1]!));
    const type = file[1]!.endsWith(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t";
    res.writeHead(200, { "content-type": type, "content-length": bytes.length });
    res.end(req.method === "HEAD" ? undefined : bytes);
  });

  const listen = (server: typeof video | typeof api) =>
    new Promise<number>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
    );
  const [apiPort, videoPort] = await Promise.all([listen(api), listen(video)]);
  // The stream's host, as X names it; plain HTTP here, which the gate routes as it routes https (see PROVENANCE.md).
  videoOrigin = `http://${videoHost}`;
  const overrides = [
    ...apiHosts.map((host) => `${host}=https://127.0.0.1:${apiPort}`),
    `${videoHost}=http://127.0.0.1:${videoPort}`,
  ];
  return {
    originOverrides: overrides.join(","),
    ytdlpPath: await ytdlpTrusting(dir, caFile),
    requestLog,
    async close() {
      api.closeAllConnections();
      video.closeAllConnections();
      await Promise.all([
        new Promise((resolve) => api.close(resolve)),
        new Promise((resolve) => video.close(resolve)),
      ]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
