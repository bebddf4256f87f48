// How far a fragmented MP4 from ffmpeg has come, read from its own bytes as they pass: each
// fragment (moof) says where its track's time starts (tfdt) and how long its samples last (trun,
// else the defaults of tfhd or trex), in the timescale the init segment (moov) gives the track.
// ffmpeg's `time=` cannot be trusted for this: with `-copyts` it counts from its first report
// (measured with ffmpeg 5.1: 13.8 s for a 20 s file read slowly). Only the boxes that say time
// (moov and moof, a few KiB) are held; the media (mdat) is counted past, never kept.
import { type Box, childrenOf, NotUnderstood, readBox, TimedBox } from "./mp4-boxes.ts";
import { concatBytes } from "../util/bytes.ts";

/** The longest moov or moof read; ffmpeg's are a few KiB, a fragment of many short samples tens. */
const maxTimeBoxBytes = 1024 * 1024;

interface Track {
  timescale: number;
  /** trex's default sample duration, for fragments that name none. */
  defaultDuration: number;
  /** Where the track's last fragment ended, in its timescale. */
  end: number;
}

export interface FragmentClock {
  /** Reads the next bytes of the file. */
  read(chunk: Uint8Array): void;
  /** Seconds of the file written so far (its longest track's end); null before a fragment, or when the file is not understood. */
  seconds(): number | null;
}

const u32 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(at);
const u64 = (bytes: Uint8Array, at: number) => Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(at));
const contentOf = (bytes: Uint8Array, box: Box) => bytes.subarray(box.content, box.end);
const childOf = (bytes: Uint8Array, parent: Box, type: string) =>
  childrenOf(bytes, parent).find((b) => b.type === type);

/** Each track of the init segment by its id: its timescale (mdhd) and trex's default duration. */
function tracksOf(bytes: Uint8Array, moov: Box): Map<number, Track> {
  const tracks = new Map<number, Track>();
  const children = childrenOf(bytes, moov);
  for (const trak of children.filter((box) => box.type === "trak")) {
    const tkhd = new TimedBox(bytes, childOf(bytes, trak, "tkhd") ?? missing("tkhd"), 8);
    const mdia = childOf(bytes, trak, "mdia") ?? missing("mdia");
    const mdhd = new TimedBox(bytes, childOf(bytes, mdia, "mdhd") ?? missing("mdhd"), 4);
    // tkhd's track id follows its two times.
    tracks.set(u32(tkhd.body, 4 + 2 * tkhd.timeSize), { timescale: mdhd.timescale(), defaultDuration: 0, end: 0 });
  }
  const mvex = children.find((box) => box.type === "mvex");
  for (const trex of mvex ? childrenOf(bytes, mvex).filter((box) => box.type === "trex") : []) {
    const body = contentOf(bytes, trex);
    const track = tracks.get(u32(body, 4));
    if (track) track.defaultDuration = u32(body, 12);
  }
  return tracks;
}

function missing(what: string): never {
  throw new NotUnderstood(what);
}

/** One track fragment (traf): its track, where it starts when it says, and how long its samples last. */
function trackFragment(bytes: Uint8Array, traf: Box, tracks: Map<number, Track>) {
  const children = childrenOf(bytes, traf);
  const tfhd = contentOf(bytes, children.find((box) => box.type === "tfhd") ?? missing("tfhd"));
  const track = tracks.get(u32(tfhd, 4)) ?? missing("the track of a fragment");
  const tfhdFlags = u32(tfhd, 0) & 0xffffff;
  // Optional fields after the track id: base data offset (8 bytes), sample description index (4).
  const defaultAt = 8 + (tfhdFlags & 0x01 ? 8 : 0) + (tfhdFlags & 0x02 ? 4 : 0);
  const defaultDuration = tfhdFlags & 0x08 ? u32(tfhd, defaultAt) : track.defaultDuration;
  const tfdtBox = children.find((box) => box.type === "tfdt");
  const tfdt = tfdtBox ? contentOf(bytes, tfdtBox) : null;
  const start = tfdt === null ? track.end : tfdt[0] === 1 ? u64(tfdt, 4) : u32(tfdt, 4);
  let duration = 0;
  for (const trun of children.filter((box) => box.type === "trun")) {
    duration += runDuration(contentOf(bytes, trun), defaultDuration);
  }
  return { track, start, duration };
}

/** The samples' durations in a trun: each its own, or all the default. */
function runDuration(trun: Uint8Array, defaultDuration: number): number {
  const flags = u32(trun, 0) & 0xffffff;
  const count = u32(trun, 4);
  if (!(flags & 0x100)) return count * defaultDuration;
  // After the count: data offset (4 bytes) and first sample flags (4), when there.
  let at = 8 + (flags & 0x01 ? 4 : 0) + (flags & 0x04 ? 4 : 0);
  const stride = 4 * [0x100, 0x200, 0x400, 0x800].filter((field) => flags & field).length;
  if (at + count * stride > trun.byteLength) missing("trun's samples");
  let duration = 0;
  for (let i = 0; i < count; i++, at += stride) duration += u32(trun, at);
  return duration;
}

export function fragmentClock(): FragmentClock {
  let tracks: Map<number, Track> | null = null;
  /** The bytes of a box begun but not yet whole (its header, or a moov or moof). */
  let held: Uint8Array = new Uint8Array(0);
  /** Bytes of other boxes (mdat) still to count past. */
  let skip = 0;
  let understood = true;

  const timeBox = (box: Box, bytes: Uint8Array) => {
    if (box.type === "moov") tracks = tracksOf(bytes, box);
    else if (box.type === "moof" && tracks !== null) {
      for (const traf of childrenOf(bytes, box).filter((child) => child.type === "traf")) {
        const { track, start, duration } = trackFragment(bytes, traf, tracks);
        track.end = Math.max(track.end, start + duration);
      }
    }
  };
  /** Reads whole boxes off the front of `held`; false once it must wait for more bytes. */
  const step = (): boolean => {
    const box = readBox(held, 0);
    if (box === null) {
      if (held.byteLength >= 16) missing("a box's size");
      return false;
    }
    if (box.type === "moov" || box.type === "moof") {
      if (box.end > maxTimeBoxBytes) missing(`a ${box.type} of ${box.end} bytes`);
      if (held.byteLength < box.end) return false;
      timeBox(box, held);
      held = held.subarray(box.end);
      return true;
    }
    const here = Math.min(held.byteLength, box.end);
    skip = box.end - here;
    held = held.subarray(here);
    return skip === 0;
  };

  return {
    read(chunk) {
      if (!understood) return;
      const past = Math.min(skip, chunk.byteLength);
      skip -= past;
      held = concatBytes(held, chunk.subarray(past));
      try {
        while (skip === 0 && held.byteLength > 0 && step());
      } catch (error) {
        if (!(error instanceof NotUnderstood)) throw error;
        understood = false;
        held = new Uint8Array(0);
      }
    },
    seconds() {
      if (!understood || tracks === null) return null;
      const ends = [...tracks.values()].filter((t) => t.end > 0).map((t) => t.end / t.timescale);
      return ends.length === 0 ? null : Math.max(...ends);
    },
  };
}
