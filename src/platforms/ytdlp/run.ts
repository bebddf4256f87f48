// Runs `yt-dlp -J` on a page URL and returns its parsed info, or throws the classified ApiError.
import { upstreamFailed } from "../../http/problem.ts";
import type { Extractor } from "../../processes/extractor.ts";
import { unreadableOutput } from "../post-errors.ts";
import { classifyYtdlpFailure } from "./errors.ts";
import { YtdlpInfo } from "./info.ts";
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
  /** yt-dlp's `--js-runtimes` value for YouTube's challenges (see js-runtime.ts); null for none. */
  jsRuntime?: string | null;
  /** A private copy of the operator's cookie file, which yt-dlp may write to (see cookie-file.ts). */
  cookiesFile?: string;
}

export function extractInfoArgs(
  url: string,
  options: Pick<
    ExtractOptions,
    "format" | "socketTimeoutSec" | "infoJson" | "jsRuntime" | "cookiesFile" | "proxy" | "playlistItems" | "flat"
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
  return parsed.data;
}
