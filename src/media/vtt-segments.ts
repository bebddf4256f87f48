// A subtitle track an HLS stream carries as WebVTT segments (RFC 8216 3.5), joined into the cues of one
// track. Each segment is a WebVTT file with a header of its own, whose `X-TIMESTAMP-MAP=MPEGTS:<90 kHz
// clock>,LOCAL:<cue time>` says which cue time is which instant of the stream. The first segment's map is the
// track's reference, as yt-dlp's HLS downloader takes it: a later segment's cues move by how far its map moves
// the stream's clock (MPEGTS, which wraps at 2^33) beyond how far it moves the cue clock (LOCAL); a segment
// without a map is read as its times are written. Segmenters write a cue that spans a segment's end into both
// segments, whole or cut at the boundary: the same words at times that meet or overlap are one cue. Pure.
import { type Cue, parseVtt, timeOf } from "./cues.ts";

const MPEGTS_HZ = 90_000;
const MPEGTS_WRAP = 2 ** 33;
/** Times are kept to the millisecond, as WebVTT writes them. */
const ms = (seconds: number) => Math.round(seconds * 1000) / 1000;

interface TimestampMap {
  mpegts: number;
  local: number;
}

/** The segment's `X-TIMESTAMP-MAP`, read from its header (the block before the first blank line); null without one. */
function timestampMap(segment: string): TimestampMap | null {
  const blank = segment.search(/\r?\n[ \t]*\r?\n/);
  const header = blank === -1 ? segment : segment.slice(0, blank);
  const value = /^X-TIMESTAMP-MAP=(.*)$/m.exec(header)?.[1];
  if (value === undefined) return null;
  const local = /LOCAL:([\d:.]+)/.exec(value)?.[1];
  return { mpegts: Number(/MPEGTS:(\d+)/.exec(value)?.[1] ?? 0), local: (local && timeOf(local)) || 0 };
}

/** How far each segment's cues move on the track's clock, in seconds, in the segments' order. */
function offsets(segments: readonly string[]): number[] {
  let reference: TimestampMap | null = null;
  let previous = -1;
  let wraps = 0;
  return segments.map((segment) => {
    const map = timestampMap(segment);
    if (map === null) return 0;
    if (map.mpegts < previous) wraps++;
    previous = map.mpegts;
    const unwrapped = { ...map, mpegts: map.mpegts + wraps * MPEGTS_WRAP };
    reference ??= unwrapped;
    return (unwrapped.mpegts - reference.mpegts) / MPEGTS_HZ - (unwrapped.local - reference.local);
  });
}

/** A repeat is a boundary's cue written in the segments on both sides: it is among the last few cues kept. */
const NEARBY_CUES = 16;

/** The cues (in order of start) with the same words at times that meet or overlap made one, spanning both. */
function withoutSegmentRepeats(cues: readonly Cue[]): Cue[] {
  const kept: Cue[] = [];
  const repeats = (cue: Cue, other: Cue) =>
    other.text === cue.text && other.start <= cue.end + 0.001 && cue.start <= other.end + 0.001;
  for (const cue of cues) {
    let at = kept.length - 1;
    while (at >= 0 && at >= kept.length - NEARBY_CUES && !repeats(cue, kept[at]!)) at--;
    if (at < 0 || at < kept.length - NEARBY_CUES) kept.push(cue);
    else {
      const other = kept[at]!;
      kept[at] = { ...other, start: Math.min(other.start, cue.start), end: Math.max(other.end, cue.end) };
    }
  }
  return kept;
}

/** The cues of a track's WebVTT segments (each a whole WebVTT file, in the playlist's order), on one clock. */
export function joinVttSegments(segments: readonly string[]): Cue[] {
  const shifts = offsets(segments);
  const cues = segments.flatMap((segment, index) =>
    parseVtt(segment).map((cue) => ({
      ...cue,
      start: ms(cue.start + shifts[index]!),
      end: ms(cue.end + shifts[index]!),
    }))
  );
  return withoutSegmentRepeats(cues.sort((a, b) => a.start - b.start));
}
