// Runs ffmpeg on a remux plan and answers with what it writes, as it writes it: fragmented MP4
// or MP3, never on disk. Headers go out with the first byte; a failure before it is a
// problem+json answer, a failure after it aborts the body (see processes/child-stream.ts).
import { ApiError } from "../http/problem.ts";
import { ffmpegArgs, type FfmpegLimits, mp3BytesPerSec, outputTypes, readFfmpegLog, type RemuxPlan } from "./ffmpeg.ts";
import { type EgressGate, type GateSession, gateVerdict } from "../net/egress-gate.ts";
import { checkPlaylists, playlistFetcher } from "./hls-playlists.ts";
import type { UpstreamClient } from "../net/relay-upstream.ts";
import { contentDisposition, sanitizeFilename } from "./filename.ts";
import { withMovieDurationStream } from "./fmp4-duration.ts";
import { spawnStream } from "../processes/child-stream.ts";
import { clipHeaders, type ClipSpan, clipSpan, startPastEnd } from "./clip.ts";
import type { ProcessHost } from "../processes/process-host.ts";

export interface RemuxOptions {
  processes: ProcessHost;
  ffmpegPath: string;
  limits: FfmpegLimits;
  /** Time cap of one download; past it ffmpeg is killed and the body aborted. */
  timeoutMs: number;
  maxBytes: number;
  /** Told when ffmpeg starts; the returned function when it has ended (metrics). */
  onChild?: () => () => void;
  onBytes?: (count: number) => void;
  /** The egress gate ffmpeg fetches through (tests of the arguments may leave it out). */
  gate?: EgressGate;
  /** Cut the download when the source sends nothing for this long. */
  idleTimeoutMs?: number;
  /** The client HLS playlists are fetched with, through the gate session's proxy URL; without it HLS inputs are refused. */
  playlistClient?: (proxyUrl: string) => UpstreamClient;
}

export interface RemuxRequest {
  plan: RemuxPlan;
  /** File name without extension; it gets the output's. */
  name: string;
  /** Length of the media in seconds, when the source says: written into the MP4's header so players can show it and seek. */
  durationSec: number | null;
  method: string;
  signal: AbortSignal;
  /** Called once ffmpeg has ended, however it ended. */
  onEnd: () => void;
}

/**
 * What the output will likely weigh: for MP4 the sum of the sources' sizes (remuxing copies the
 * streams; the container differs a little), for MP3 the length times the constant bit rate.
 * Null when a part is unknown.
 */
export function estimatedBytes(plan: RemuxPlan, durationSec: number | null): number | null {
  if (plan.output === "mp3") {
    return durationSec !== null && durationSec > 0 ? Math.round(durationSec * mp3BytesPerSec) : null;
  }
  let total = 0;
  for (const { sizeBytes } of plan.inputs) {
    if (sizeBytes === undefined || !(sizeBytes > 0)) return null;
    total += sizeBytes;
  }
  return Math.round(total);
}

/** The headers of the answer: its type, name, size estimate, and a clip's span once its start is known. */
function answerHeaders(request: RemuxRequest, lengthSec: number | null, clip: Record<string, string> = {}) {
  const type = outputTypes[request.plan.output];
  const whole = estimatedBytes(request.plan, request.durationSec);
  // A clip weighs its share of the whole.
  const estimate = request.plan.clip === undefined
    ? whole
    : whole !== null && lengthSec !== null && request.durationSec
    ? Math.round((whole * lengthSec) / request.durationSec)
    : null;
  return {
    "content-type": type.contentType,
    "content-disposition": contentDisposition(sanitizeFilename(request.name, type.extension)),
    // The exact size is not known before ffmpeg ends, so Content-Length cannot be sent; clients
    // show progress from this (the header cobalt uses), never trust it as the length.
    ...(estimate === null ? {} : { "estimated-content-length": String(estimate) }),
    ...clip,
  };
}

/** The output's length when known before ffmpeg runs: the media's, or a clip's that starts where it was asked to. */
function lengthBefore(span: ClipSpan | null, mediaSec: number | null): number | null {
  if (span === null) return mediaSec;
  return span.keyFrame || span.endSec === null ? null : span.endSec - span.startSec;
}

export async function remuxResponse(request: RemuxRequest, options: RemuxOptions): Promise<Response> {
  const span = clipSpan(request.plan, request.durationSec);
  const lengthSec = lengthBefore(span, request.durationSec);
  if (request.method === "HEAD") {
    request.onEnd();
    const clip = span === null || span.keyFrame ? {} : clipHeaders(span.startSec, span.endSec);
    return new Response(null, { headers: answerHeaders(request, lengthSec, clip) });
  }
  const session = await options.gate?.session("media");
  let plan: RemuxPlan;
  try {
    plan = await withCheckedPlaylists(request, options, session);
  } catch (error) {
    session?.close();
    request.onEnd();
    throw gateVerdict(session, error);
  }
  const ended = options.onChild?.();
  const log = readFfmpegLog(options.limits, {
    durationSec: lengthSec,
    hls: plan.inputs.some((input) => input.hls),
    output: plan.output,
    ...(span?.keyFrame ? { clip: { startSec: span.startSec, endSec: span.endSec } } : {}),
  });
  const child = spawnStream(
    options.processes,
    options.ffmpegPath,
    ffmpegArgs(plan, options.limits, session?.proxyUrl),
    {
      // A source that led ffmpeg to an address the gate refused is 403, not a failed fetch.
      classify: (code, stderr) => gateVerdict(session, log.classify(code, stderr)),
      failedDespiteExit0: (stderr) => session?.refusal() != null || log.failedDespiteExit0(stderr),
      readOutput: log.readOutput,
      readLog: (line) => {
        const meaning = log.readLog(line);
        return meaning instanceof ApiError ? gateVerdict(session, meaning) : meaning;
      },
      signal: request.signal,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      onBytes: options.onBytes,
      ...(session && options.idleTimeoutMs
        ? { idle: { timeoutMs: options.idleTimeoutMs, lastSourceByte: session.lastSourceByte } }
        : {}),
    },
  );
  void child.exited.finally(() => {
    session?.close();
    ended?.();
    request.onEnd();
  });
  let sent: { lengthSec: number | null; clip: Record<string, string> };
  try {
    await child.firstChunk;
    sent = await clipSent(span, lengthSec, log.clipStart, child.exited, request.durationSec);
  } catch (error) {
    child.kill();
    throw error;
  }
  // Fragmented MP4 (video, or M4A sound) says no length until told; MP3 needs no help: players
  // estimate its length from the constant bit rate.
  const fragmented = request.plan.output !== "mp3";
  const body = fragmented && sent.lengthSec !== null
    ? withMovieDurationStream(child.stdout, sent.lengthSec)
    : child.stdout;
  return new Response(body, { headers: answerHeaders(request, sent.lengthSec, sent.clip) });
}

/**
 * What a clip sends, said before its first byte: a key-frame cut's start once ffmpeg has read it
 * (an ffmpeg that ends without one had nothing past `start`: 400), else where it was asked to start.
 */
async function clipSent(
  span: ClipSpan | null,
  lengthSec: number | null,
  clipStart: Promise<number>,
  exited: Promise<unknown>,
  mediaSec: number | null,
): Promise<{ lengthSec: number | null; clip: Record<string, string> }> {
  if (span === null) return { lengthSec, clip: {} };
  const startSec = span.keyFrame ? await Promise.race([clipStart, exited.then(() => null)]) : span.startSec;
  if (startSec === null) throw startPastEnd(mediaSec);
  return {
    lengthSec: span.endSec === null ? null : span.endSec - startSec,
    clip: clipHeaders(startSec, span.endSec),
  };
}

/** The plan with each HLS input read from the gate's checked copy of its playlists (hls-playlists.ts). */
async function withCheckedPlaylists(
  request: RemuxRequest,
  options: RemuxOptions,
  session: GateSession | undefined,
): Promise<RemuxPlan> {
  const { plan } = request;
  const all = [...plan.inputs, ...(plan.subtitles ? [plan.subtitles.input] : [])];
  if (!all.some((input) => input.hls)) return plan;
  if (!options.playlistClient || !session) {
    throw new ApiError("internal_error", "HLS needs the egress gate and its playlist client.");
  }
  const fetchPlaylist = playlistFetcher(options.playlistClient(session.proxyUrl), request.signal);
  const inputs = await checkPlaylists(all, fetchPlaylist, (playlist) => session.servePlaylist(playlist));
  const subtitles = plan.subtitles ? { ...plan.subtitles, input: inputs[plan.inputs.length]! } : undefined;
  return { ...plan, inputs: inputs.slice(0, plan.inputs.length), ...(subtitles ? { subtitles } : {}) };
}
