// Runs `yt-dlp -J` on a page URL and returns its parsed info, or throws the classified ApiError.
import { upstreamFailed } from "../../../http/problem.ts";
import type { Extractor } from "../../../processes/extractor.ts";
import { emptyPostError, unreadableOutput } from "../../post-errors.ts";
import { classifyYtdlpFailure } from "./errors.ts";
import { isEmptyPlaylist, YtdlpInfo } from "./info.ts";
import { jsRuntimeArgs } from "./js-runtime.ts";

export interface ExtractOptions {
  extractor: Extractor;
  /** Kills yt-dlp after this long (504 `upstream_timeout`). */
  timeoutMs: number;
  /** yt-dlp's own per-connection timeout; a stalled site then fails as 502 before `timeoutMs`. */
  socketTimeoutSec?: number;
  /** A format selector: yt-dlp then names the chosen formats in `requested_formats`. */
  format?: string;
  /**
   * `--playlist-items`: which entries of a page with several media to describe, `1:20` or `3`;
   * default `1`. Always bounded: a channel or playlist link must not become hundreds of extractions.
   */
  playlistItems?: string;
  /**
   * Lists a playlist's entries without describing each (`--flat-playlist`, a job's expansion): a
   * link that is both a post and a playlist (a video in a list) then stands for the list.
   */
  flat?: boolean;
  signal?: AbortSignal;
  /**
   * An info JSON from an earlier run: yt-dlp then only applies `format` to it, with no network
   * and no second extraction (`--load-info-json -`).
   */
  infoJson?: string;
  /** The egress gate's proxy URL: every connection yt-dlp opens goes through it. */
  proxy?: string;
  /** yt-dlp's `--js-runtimes` value for the JavaScript challenges js-runtime.ts names; null for none. */
  jsRuntime?: string | null;
  /** A private copy of the operator's cookie file, which yt-dlp may write to (see cookie-file.ts). */
  cookiesFile?: string;
  /** The operator's PO-token server (PO_TOKEN_URL) and the bound on each ask, for the extraction host's provider. */
  poTokens?: PoTokenServer;
}

export interface PoTokenServer {
  url: string;
  timeoutMs: number;
}

/**
 * The options of `extractInfoArgs` a job may carry and still run in a worker of the extraction host,
 * a thread beside other jobs (extraction-host/pool.py): none leaves anything in the interpreter for
 * the next job. The host is handed this list; it keeps none of its own. An option added to
 * `extractInfoArgs` goes into `flags` (alone) or `valued` (followed by one value) when it keeps to
 * its own job, else into `runsAlone`; test/platforms/tools/ytdlp/worker-options.test.ts fails until it is
 * in one of the three.
 */
export const workerOptions = {
  flags: ["-J", "--ignore-config", "--no-playlist", "--no-warnings", "--no-js-runtimes"],
  valued: [
    "--playlist-items",
    "--socket-timeout",
    "-f",
    "--proxy",
    "--js-runtimes",
    "--remote-components",
    "--extractor-args",
  ],
  /** A job with these runs in a child of its own: yt-dlp writes the cookie jar back; the description comes on stdin. */
  runsAlone: ["--cookies", "--load-info-json"],
} as const;

export function extractInfoArgs(
  url: string,
  options: Pick<
    ExtractOptions,
    | "format"
    | "socketTimeoutSec"
    | "infoJson"
    | "jsRuntime"
    | "cookiesFile"
    | "proxy"
    | "playlistItems"
    | "flat"
    | "poTokens"
  >,
): string[] {
  return [
    // --ignore-config: a yt-dlp.conf in the working or home folder must not change what runs.
    "-J",
    "--ignore-config",
    ...(options.flat ? ["--flat-playlist", "--yes-playlist"] : ["--no-playlist"]),
    "--playlist-items",
    options.playlistItems ?? "1",
    "--no-warnings",
    ...(options.socketTimeoutSec ? ["--socket-timeout", String(options.socketTimeoutSec)] : []),
    ...(options.format ? ["-f", options.format] : []),
    ...(options.proxy ? ["--proxy", options.proxy] : []),
    ...(options.jsRuntime === undefined ? [] : jsRuntimeArgs(options.jsRuntime)),
    ...(options.cookiesFile ? ["--cookies", options.cookiesFile] : []),
    // The extraction host's provider (extraction-host/pot.py) reads its server from here, per job.
    ...(options.poTokens
      ? [
        "--extractor-args",
        `youtubepot-mediaapi:base_url=${options.poTokens.url};timeout_ms=${options.poTokens.timeoutMs}`,
      ]
      : []),
    // "--" keeps a URL that starts with "-" from being read as an option.
    ...(options.infoJson === undefined ? ["--", url] : ["--load-info-json", "-"]),
  ];
}

export async function extractInfo(url: string, options: ExtractOptions): Promise<YtdlpInfo> {
  const output = await options.extractor.run({
    tool: "yt-dlp",
    args: extractInfoArgs(url, options),
    stdin: options.infoJson,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  if (output.exitCode !== 0) throw classifyYtdlpFailure(output.exitCode, output.stderr);
  let json: unknown;
  try {
    json = JSON.parse(output.stdout);
  } catch (cause) {
    throw unreadableOutput(cause);
  }
  const parsed = YtdlpInfo.safeParse(json);
  if (!parsed.success || json === null) {
    throw upstreamFailed("The media tool returned no description of this link; try again later.");
  }
  // Not one phantom item with the list's title and no file: nothing to download here.
  if (isEmptyPlaylist(parsed.data)) throw emptyPostError("yt-dlp", output.stderr);
  return parsed.data;
}
