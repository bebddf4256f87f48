// YouTube's proof-of-origin tokens from the operator's token server (PO_TOKEN_URL): the extraction
// host's provider (extraction-host/pot.py) in the installed yt-dlp, asked by yt-dlp's own YouTube
// extractor as an extraction asks it (a whole extraction against a local YouTube, and the extractor's
// ask alone), against a token server on 127.0.0.1 that speaks bgutil's protocol. One ask per video
// (yt-dlp keeps the token for its lifetime), the token handed to yt-dlp (in the format links it
// gives); a server that does not answer ends the job within its bound, with a line the service
// answers 502.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { classifyYtdlpFailure } from "../../src/platforms/tools/ytdlp/errors.ts";
import { extractInfoArgs } from "../../src/platforms/tools/ytdlp/run.ts";
import { scaled } from "../helpers/slowness.ts";

const hostDir = fileURLToPath(new URL("../../extraction-host/", import.meta.url));
/** The interpreter the installed yt-dlp runs on (its program's first line), which imports its package. */
const interpreter = /^#!\s*(\S+)/.exec(readFileSync("/usr/bin/yt-dlp", "utf8"))![1]!;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function tokenServer(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const asked: { path: string; body: Record<string, unknown> }[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    asked.push({ path: `${req.method} ${req.url}`, body: JSON.parse(body || "{}") });
    answer(req, res, body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

/** yt-dlp's YouTube extractor asking for the player token of each video, as an extraction does; its output and time. */
function askAsTheExtractor(videos: string[], extractorArgs: string) {
  const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(hostDir)})
import pot
from yt_dlp import YoutubeDL, parse_options
options = parse_options(["--extractor-args", ${JSON.stringify(extractorArgs)}, "--no-warnings"]).ydl_opts
ie = YoutubeDL(options).get_info_extractor("Youtube")
ie.initialize()  # as an extraction does first: its PO-token director is made here
ytcfg = {"INNERTUBE_CONTEXT": {"client": {"clientName": "WEB", "clientVersion": "2.20261101.00.00"}}}
for video in ${JSON.stringify(videos)}:
    token = ie._fetch_po_token(client="web", context="player", ytcfg=ytcfg, video_id=video, required=True)
    print(json.dumps({"video": video, "token": token}), flush=True)
`;
  const started = Date.now();
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((resolve) => {
    execFile(
      interpreter,
      ["-c", script],
      { timeout: scaled(60_000) },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

/** A token as a token server makes them (base64 bytes; 21 of them, so no padding), naming its binding. */
const tokenOf = (binding: string) => Buffer.from(`token-for-${binding}`).toString("base64url");

/** The extractor arguments the service gives yt-dlp for PO_TOKEN_URL (run.ts). */
function serviceArgs(url: string, timeoutMs: number): string {
  const args = extractInfoArgs("https://www.youtube.com/watch?v=jNQXAC9IVRw", { poTokens: { url, timeoutMs } });
  return args[args.indexOf("--extractor-args") + 1]!;
}

/**
 * YouTube as yt-dlp's YouTube extractor meets it for a logged-out web client, on 127.0.0.1: the watch page with its
 * `ytcfg` (visitor data, and the experiment that binds a GVS token to the video) and its initial player response of
 * one itag-22 format (itag 18 needs no token), and the InnerTube API, which answers `next` with nothing (the
 * extractor reads the page's response). Made from yt-dlp's extractor code (PROVENANCE.md, "YouTube's PO tokens").
 */
async function fakeYouTube() {
  const asked: string[] = [];
  const playerOf = (video: string) => ({
    playabilityStatus: { status: "OK" },
    videoDetails: { videoId: video, title: `Video ${video}`, lengthSeconds: "19", author: "a", channelId: "UC1" },
    streamingData: {
      expiresInSeconds: "21540",
      formats: [{
        itag: 22,
        url: `https://rr1---sn-test.googlevideo.com/videoplayback?id=${video}&itag=22`,
        mimeType: 'video/mp4; codecs="avc1.64001F, mp4a.40.2"',
        bitrate: 500000,
        width: 1280,
        height: 720,
        quality: "hd720",
        qualityLabel: "720p",
        approxDurationMs: "19000",
      }],
    },
  });
  const ytcfg = {
    INNERTUBE_CONTEXT: { client: { clientName: "WEB", clientVersion: "2.20260708.00.00", hl: "en" } },
    INNERTUBE_CONTEXT_CLIENT_NAME: 1,
    INNERTUBE_CLIENT_VERSION: "2.20260708.00.00",
    VISITOR_DATA: "CgtWaXNpdG9ySWQxMQ%3D%3D",
    WEB_PLAYER_CONTEXT_CONFIGS: {
      WEB_PLAYER_CONTEXT_CONFIG_ID_KEVLAR_WATCH: { serializedExperimentFlags: "html5_generate_content_po_token=true" },
    },
  };
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    const url = new URL(req.url!, "http://www.youtube.com");
    asked.push(`${req.method} ${url.pathname}`);
    if (url.pathname === "/watch") {
      const video = url.searchParams.get("v")!;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return void res.end(
        `<html><script>ytcfg.set(${JSON.stringify(ytcfg)});</script>` +
          `<script>var ytInitialPlayerResponse = ${JSON.stringify(playerOf(video))};</script></html>`,
      );
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

/**
 * A whole extraction of each video by the installed yt-dlp with the service's extractor arguments, its YouTube on
 * `origin` (yt-dlp's requests to https://www.youtube.com sent there: the service's ORIGIN_OVERRIDES would need yt-dlp
 * to trust a test authority, which the extraction host's interpreter cannot be told), the web client alone and no
 * player script (its challenges are not what is tested); each video's format links, or the error, and the time.
 */
function extractAsTheService(videos: string[], extractorArgs: string, origin: string) {
  const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(hostDir)})
import pot
from yt_dlp import YoutubeDL, parse_options
from yt_dlp.networking import Request
opened = YoutubeDL.urlopen
def urlopen(self, req):
    req = Request(req) if isinstance(req, str) else req
    req.url = req.url.replace("https://www.youtube.com", ${JSON.stringify(origin)})
    return opened(self, req)
YoutubeDL.urlopen = urlopen
options = parse_options(["--extractor-args", ${JSON.stringify(extractorArgs)},
    "--extractor-args", "youtube:player_client=web;player_skip=js", "--no-warnings", "--quiet"]).ydl_opts
with YoutubeDL(options) as ydl:
    for video in ${JSON.stringify(videos)}:
        info = ydl.extract_info("https://www.youtube.com/watch?v=" + video, download=False)
        print(json.dumps({"video": video, "urls": [f["url"] for f in info["formats"]]}), flush=True)
`;
  const started = Date.now();
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((resolve) => {
    execFile(
      interpreter,
      ["-c", script],
      { timeout: scaled(60_000) },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

describe("a YouTube extraction with PO_TOKEN_URL", () => {
  test("asks the token server once per video and hands yt-dlp each video's token in its format links", async () => {
    const server = await tokenServer((_req, res, body) => {
      const binding = JSON.parse(body).content_binding as string;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({
        poToken: tokenOf(binding),
        contentBinding: binding,
        expiresAt: new Date(Date.now() + 6 * 3600_000).toISOString(),
      }));
    });
    const youtube = await fakeYouTube();
    const run = await extractAsTheService(
      ["jNQXAC9IVRw", "BGQWPY4IigY", "jNQXAC9IVRw"],
      serviceArgs(server.url, 5000),
      youtube.origin,
    );
    expect(run.stderr).toBe("");
    expect(run.stdout.trim().split("\n").map((line) => JSON.parse(line))).toEqual(
      ["jNQXAC9IVRw", "BGQWPY4IigY", "jNQXAC9IVRw"].map((video) => ({
        video,
        urls: [`https://rr1---sn-test.googlevideo.com/videoplayback?id=${video}&itag=22&pot=${tokenOf(video)}`],
      })),
    );
    expect(youtube.asked.filter((each) => each === "GET /watch")).toHaveLength(3);
    // Bound to each video (the experiment the page names), and kept for its lifetime: the third read asks nothing.
    expect(server.asked).toEqual([
      { path: "POST /get_pot", body: { content_binding: "jNQXAC9IVRw", bypass_cache: false } },
      { path: "POST /get_pot", body: { content_binding: "BGQWPY4IigY", bypass_cache: false } },
    ]);
  });

  test("a token server that does not answer ends the extraction within its bound, answered 502", async () => {
    const server = await tokenServer(() => {}); // takes the request and never answers
    const youtube = await fakeYouTube();
    const run = await extractAsTheService(["jNQXAC9IVRw"], serviceArgs(server.url, 800), youtube.origin);
    expect(run.code).not.toBe(0);
    expect(server.asked).toHaveLength(1);
    // The bound, plus the interpreter's start, yt-dlp's import and the page's reads.
    expect(run.ms).toBeLessThan(800 + scaled(15_000));
    expect(run.stderr).toContain(
      `ERROR: [pot:media-api] the PO token server ${server.url} gave no token within 800 ms`,
    );
    expect(classifyYtdlpFailure(1, run.stderr)).toMatchObject({ status: 502, code: "upstream_failed" });
  });
});

describe("the extraction host's PO-token provider", () => {
  test("asks the token server once per video, bound to the video, and hands the extractor its token", async () => {
    const server = await tokenServer((_req, res, body) => {
      const binding = JSON.parse(body).content_binding as string;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({
        poToken: tokenOf(binding),
        contentBinding: binding,
        expiresAt: new Date(Date.now() + 6 * 3600_000).toISOString(),
      }));
    });
    const run = await askAsTheExtractor(["jNQXAC9IVRw", "jNQXAC9IVRw", "BGQWPY4IigY"], serviceArgs(server.url, 5000));
    expect(run.stderr).toBe("");
    expect(run.stdout.trim().split("\n").map((line) => JSON.parse(line))).toEqual([
      { video: "jNQXAC9IVRw", token: tokenOf("jNQXAC9IVRw") },
      { video: "jNQXAC9IVRw", token: tokenOf("jNQXAC9IVRw") },
      { video: "BGQWPY4IigY", token: tokenOf("BGQWPY4IigY") },
    ]);
    expect(server.asked).toEqual([
      { path: "POST /get_pot", body: { content_binding: "jNQXAC9IVRw", bypass_cache: false } },
      { path: "POST /get_pot", body: { content_binding: "BGQWPY4IigY", bypass_cache: false } },
    ]);
  });

  test("a token server that does not answer ends the job within its bound, which the service answers 502", async () => {
    const server = await tokenServer(() => {}); // takes the request and never answers
    const run = await askAsTheExtractor(["jNQXAC9IVRw"], serviceArgs(server.url, 800));
    expect(run.code).not.toBe(0);
    expect(server.asked).toHaveLength(1);
    // The bound, plus the interpreter's start and yt-dlp's import.
    expect(run.ms).toBeLessThan(800 + 15_000);
    expect(run.stderr).toContain(
      `ERROR: [pot:media-api] the PO token server ${server.url} gave no token within 800 ms`,
    );
    const error = classifyYtdlpFailure(1, run.stderr);
    expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
    expect(error.message).toMatch(/proof-of-origin tokens did not answer in time.*operator/);
  });

  test("without PO_TOKEN_URL yt-dlp is given no token server", () => {
    expect(extractInfoArgs("https://www.youtube.com/watch?v=jNQXAC9IVRw", {})).not.toContain("--extractor-args");
  });
});
