// What a download sends, as its source planned it: one file relayed as its host serves it, or
// ffmpeg's remux of inputs. The kinds live here, beside the runner that carries them out
// (run-plan.ts), because media/ may not import platforms/; platforms/source.ts names them for
// the sources that make them.
import type { RemuxPlan } from "./ffmpeg.ts";
import { withOriginOverride } from "../http/direct-hosts.ts";

/** One file relayed as its host serves it (direct mode): Range, HEAD and its length pass through. */
export interface RelayPlan {
  kind: "relay";
  url: URL;
  /** The same file on other hosts (a CDN's backup nodes), tried in turn when the one before fails before its first byte. */
  mirrors?: readonly URL[];
  /** Throws 403 unless a URL (the file's, or a redirect's target) is on a host this file may come from. */
  allowed: (url: URL, what?: string) => void;
  /** File name without extension: the caller's `filename`, else the source's own. */
  name: string;
  /** The media's length in seconds when the source says it (X's are whole seconds): a clip's bounds are checked against it. */
  durationSec?: number | null;
}

/** ffmpeg reads the inputs and writes the output as it goes (page mode); `ffmpeg` is what it is told. */
export interface RemuxJob {
  kind: "remux";
  ffmpeg: RemuxPlan;
  name: string;
  /** The media's length in seconds when the source says (unrounded): written into the MP4's header. */
  durationSec: number | null;
}

export type Plan = RelayPlan | RemuxJob;

/** The slot kinds of limits/slots.ts `operationSlots` that carrying out a plan holds. */
export type RunSlot = "directDownloads" | "remuxes" | "encodes";

/** A relay holds two sockets; a stream copy little CPU; MP3 and a re-encode real CPU. */
export function slotOf(plan: Plan): RunSlot {
  if (plan.kind === "relay") return "directDownloads";
  const { output, transcodeVideo, transcodeAudio } = plan.ffmpeg;
  return output === "mp3" || transcodeVideo || transcodeAudio ? "encodes" : "remuxes";
}

/**
 * A relay asked for as sound (MP3, or M4A: its AAC copied) or as a clip: ffmpeg reads the file
 * the relay would have sent (from the operator's override origin, when there is one) and writes
 * its sound, or the part asked for as MP4.
 */
export function relayAsRemux(
  relay: RelayPlan,
  output: RemuxPlan["output"],
  originOverrides: ReadonlyMap<string, string>,
): RemuxJob {
  const hls = relay.url.pathname.endsWith(".m3u8");
  const input = { url: withOriginOverride(relay.url, originOverrides).href, headers: {}, hls };
  return {
    kind: "remux",
    ffmpeg: {
      output,
      inputs: [input],
      videoInput: output === "mp4" ? 0 : null,
      audioInput: 0,
      transcodeVideo: false,
      transcodeAudio: false,
      // An HLS stream's sound is ADTS AAC in MPEG-TS (X's and Bluesky's are); a file's is MP4's own.
      adtsAudio: hls,
    },
    name: relay.name,
    durationSec: null,
  };
}
