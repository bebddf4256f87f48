// Carries out a download's plan: takes the slot its kind costs (plan.ts `slotOf`), relays the file
// or runs ffmpeg, and gives the slot back when the response is over. Every URL ffmpeg will read is
// checked first: a page names them, and a page may name an address inside our network.
import { cutWhenClientStalls } from "../http/client-stall.ts";
import { ApiError } from "../http/problem.ts";
import type { ApiContext, Download } from "../auth/api-context.ts";
import type { SlotHolder, Slots } from "../limits/slots.ts";
import { requireTools, type ToolProbe } from "../processes/tools.ts";
import { assertFetchable, type EgressPolicy } from "../net/egress.ts";
import { withOriginOverride } from "../http/direct-hosts.ts";
import type { RemuxPlan } from "./ffmpeg.ts";
import { type Plan, relayAsRemux, type RelayPlan, type RemuxJob, type RunSlot, slotOf } from "./plan.ts";
import type { ClipRange } from "../http/clip-range.ts";
import { clipped, exactCutsOff, requireWithin } from "./clip.ts";
import { relayMedia, type RelayOptions } from "./relay.ts";
import { firstByteOf } from "./first-byte.ts";
import { gateVerdict } from "../net/egress-gate.ts";
import { type RemuxOptions, remuxResponse } from "./remux.ts";

export interface RunDeps {
  relay: RelayOptions;
  remux: RemuxOptions;
  /** The tools' probe: a remux needs ffmpeg (503 tool_missing). */
  tools: ToolProbe;
  slots: Record<RunSlot, Slots>;
  /** Which addresses ffmpeg may be pointed at. */
  egress: EgressPolicy;
  /** A download whose client takes nothing for this long is cut (0: never). */
  clientStallTimeoutMs: number;
  /** Whether a clip may be cut exactly, re-encoding its video (CLIP_EXACT_CUTS). */
  exactCuts: boolean;
}

/** What the download is sent as: the output, and the part of the media (null: all of it). */
export interface Sent {
  output: RemuxPlan["output"];
  clip: ClipRange | null;
  /** The video alone, its sound left out (MP4 only); unset is false. */
  mute?: boolean;
}

/** Whose download it is: the request (its method, Range, signal), when its response is over, and the key that holds the slot. */
export interface Caller {
  request: Request;
  whenDone: ApiContext["whenDone"];
  clientProgress: ApiContext["clientProgress"];
  holder: SlotHolder;
}

/**
 * The download of `planned` sent as `sent` asks, with the mode that made it: a relay asked for as
 * sound (MP3, M4A) or as a clip is ffmpeg's remux of the same file, which counts as page mode.
 */
export async function runPlan(
  planned: Plan,
  sent: Sent,
  caller: Caller,
  deps: RunDeps,
): Promise<Download> {
  const plan = planAsAsked(planned, sent, deps);
  if (plan.kind === "remux") await requireTools(deps.tools, ["ffmpeg"]);
  const release = deps.slots[slotOf(plan)].acquire(caller.holder);
  try {
    const response = plan.kind === "relay"
      ? await relay(plan, caller, release, deps)
      : await remux(plan, caller.request, release, deps);
    const served = cutWhenClientStalls(response, deps.clientStallTimeoutMs, caller.clientProgress);
    return { response: served, mode: plan.kind === "relay" ? "direct" : "page" };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The plan as `sent` asks: a relay stays one unless its sound or a part of it is asked for (then
 * it is ffmpeg's remux of the file); a clip (media/clip.ts) is bounded by the media's length
 * where the source gave it, and cut exactly only where the operator allows.
 */
function planAsAsked(planned: Plan, { output, clip, mute }: Sent, deps: RunDeps): Plan {
  if (clip?.exact && !deps.exactCuts) throw exactCutsOff();
  if (planned.kind === "remux") {
    const job = mute ? muted(planned) : planned;
    return clip === null ? job : clipped(job, clip);
  }
  if (clip === null && output === "mp4" && !mute) return planned;
  if (clip !== null) requireWithin(clip, planned.durationSec ?? null);
  planned.allowed(planned.url);
  const relayed = relayAsRemux(planned, output, deps.relay.originOverrides);
  const job = mute ? muted(relayed) : relayed;
  return clip === null ? job : clipped(job, clip);
}

/** The remux with its video alone: the sound's input is not read at all when it is another than the video's. */
function muted(job: RemuxJob): RemuxJob {
  const { inputs, videoInput } = job.ffmpeg;
  if (videoInput === null) {
    throw new ApiError("invalid_parameter", "This item is sound alone; `mute` needs a video. Leave `mute` out.");
  }
  const ffmpeg = { ...job.ffmpeg, inputs: [inputs[videoInput]!], videoInput: 0, audioInput: null };
  return { ...job, ffmpeg: { ...ffmpeg, transcodeAudio: false, adtsAudio: false } };
}

/**
 * Throws the problem a download of `plan` would meet before its first byte, asking each file it
 * reads for that byte alone: a relay's source (its mirrors in turn), or each input ffmpeg would
 * read, through the egress gate as ffmpeg's reads go. A job's item with files is done only once
 * this passes, so that its archive does not meet a dead file.
 */
export async function requireAnswers(plan: Plan, deps: RunDeps, signal: AbortSignal): Promise<void> {
  if (plan.kind === "relay") {
    const request = new Request("http://first-byte.invalid/", { headers: { range: "bytes=0-0" }, signal });
    const response = await relay(plan, { request, whenDone: () => {} }, () => {}, deps);
    await response.body?.cancel();
    return;
  }
  const { gate, playlistClient } = deps.remux;
  // Without the gate (tests of ffmpeg's arguments) nothing reads as ffmpeg would.
  if (gate === undefined || playlistClient === undefined) return;
  const { inputs, subtitles } = plan.ffmpeg;
  const session = await gate.session("media");
  try {
    const upstream = playlistClient(session.proxyUrl);
    await Promise.all(
      [...inputs, ...(subtitles ? [subtitles.input] : [])].map((input) => firstByteOf(upstream, input, signal)),
    );
  } catch (error) {
    throw gateVerdict(session, error);
  } finally {
    session.close();
  }
}

async function relay(
  plan: RelayPlan,
  { request, whenDone }: Pick<Caller, "request" | "whenDone">,
  release: () => void,
  deps: RunDeps,
): Promise<Response> {
  // Held until the upstream body is over or the response is (whichever the runtime tells first).
  whenDone(release);
  const method = request.method === "HEAD" ? "HEAD" : "GET";
  const urls = [plan.url, ...(plan.mirrors ?? [])];
  for (let i = 0;; i++) {
    try {
      return await relayMedia({
        url: urls[i]!,
        allowed: plan.allowed,
        method,
        range: request.headers.get("range"),
        signal: request.signal,
        filename: plan.name,
        onEnd: release,
      }, deps.relay);
    } catch (error) {
      if (i === urls.length - 1 || !mirrorMayServe(error) || request.signal.aborted) throw error;
    }
  }
}

/**
 * Whether another host of the same file may do better: this one could not be reached, was slow,
 * failed or had no copy. Not when the caller's Range is past the end, the file is too large, or a
 * host is not allowed: a mirror changes none of these.
 */
function mirrorMayServe(error: unknown): boolean {
  return error instanceof ApiError &&
    (error.code === "upstream_failed" || error.code === "upstream_timeout" || error.code === "not_found");
}

async function remux(job: RemuxJob, request: Request, release: () => void, deps: RunDeps): Promise<Response> {
  const inputs = [...job.ffmpeg.inputs, ...(job.ffmpeg.subtitles ? [job.ffmpeg.subtitles.input] : [])];
  // Checked where the gate will connect: an input on a host the operator sent elsewhere (ORIGIN_OVERRIDES) is fetched
  // from that origin, which the name itself need not resolve to.
  const overrides = deps.relay.originOverrides;
  await Promise.all(
    inputs.map((input) => assertFetchable(withOriginOverride(new URL(input.url), overrides), deps.egress)),
  );
  const { ffmpeg, name, durationSec } = job;
  return remuxResponse(
    { plan: ffmpeg, name, durationSec, method: request.method, signal: request.signal, onEnd: release },
    deps.remux,
  );
}
