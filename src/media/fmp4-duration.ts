// Gives fragmented MP4 from ffmpeg a duration. With `empty_moov` (needed to write to a pipe)
// the init segment says 0 everywhere, so players show no length and cannot seek until they
// have read the whole file. When the length is known up front (yt-dlp says it), it is written
// where players look before any fragment: the Movie Extends Header (mehd in mvex, ISO/IEC
// 14496-12 8.8.2, the standard's place for the length of a fragmented movie), the movie
// header (mvhd), and each track's tkhd and mdhd: ffmpeg-based players take the length from
// mdhd alone (measured with ffprobe 5.1: mvhd and mehd without mdhd change nothing). Bytes
// laid out otherwise pass unchanged: a download must never break over a nicety.

interface Box {
  type: string;
  start: number;
  /** Where the box's content begins (after size, type and any 64-bit size). */
  content: number;
  end: number;
}

/** The box at `start`, or null when its header is cut off or its size is impossible. */
function readBox(bytes: Uint8Array, start: number): Box | null {
  if (start + 8 > bytes.byteLength) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start);
  const type = String.fromCharCode(bytes[start + 4]!, bytes[start + 5]!, bytes[start + 6]!, bytes[start + 7]!);
  let size = view.getUint32(0);
  let content = start + 8;
  if (size === 1) {
    if (start + 16 > bytes.byteLength) return null;
    size = Number(view.getBigUint64(8));
    content = start + 16;
  }
  // Size 0 ("to the end of the file") cannot describe a box that more bytes follow.
  if (size < content - start) return null;
  return { type, start, content, end: start + size };
}

class NotUnderstood extends Error {}

function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new NotUnderstood(what);
  return value;
}

/** The boxes that exactly fill the content of `parent`. */
function childrenOf(bytes: Uint8Array, parent: Box): Box[] {
  const boxes: Box[] = [];
  for (let at = parent.content; at < parent.end;) {
    const box = readBox(bytes, at);
    if (box === null || box.end > parent.end) throw new NotUnderstood(`the children of ${parent.type}`);
    boxes.push(box);
    at = box.end;
  }
  return boxes;
}

type MoovSearch = { moov: Box } | { moov: null; wait: boolean };

/**
 * Where the moov box of an init segment is, once all of it is in `bytes`; otherwise `wait`
 * says whether more bytes could still bring it (false for anything that does not start like
 * an MP4 file, and for media before any moov).
 */
function findMoov(bytes: Uint8Array): MoovSearch {
  for (let at = 0;;) {
    const box = readBox(bytes, at);
    // A header cut off may yet arrive; a whole one with an impossible size stays impossible.
    if (box === null) return { moov: null, wait: at + 16 > bytes.byteLength };
    if ((at === 0 && box.type !== "ftyp") || box.type === "moof" || box.type === "mdat") {
      return { moov: null, wait: false };
    }
    if (box.type === "moov") return box.end <= bytes.byteLength ? { moov: box } : { moov: null, wait: true };
    at = box.end;
  }
}

function writeBox(type: string, parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((sum, part) => sum + part.byteLength, 0);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  let at = 8;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

const maxUint32 = 0xffff_ffff;

/** mehd: version 1 (64-bit) only when the duration needs it. */
function mehd(units: number): Uint8Array {
  const wide = units > maxUint32;
  const body = new Uint8Array(wide ? 12 : 8);
  body[0] = wide ? 1 : 0;
  if (wide) new DataView(body.buffer).setBigUint64(4, BigInt(units));
  else new DataView(body.buffer).setUint32(4, units);
  return writeBox("mehd", [body]);
}

/**
 * mvhd, tkhd and mdhd begin alike: version and flags; creation and modification times (32
 * bits each in version 0, 64 in version 1); `middle` bytes (the timescale, or in tkhd the
 * track id and a reserved word); then the duration, as wide as the times.
 */
class TimedBox {
  readonly body: Uint8Array;
  readonly timeSize: 4 | 8;

  constructor(
    bytes: Uint8Array,
    readonly box: Box,
    readonly middle: 4 | 8,
  ) {
    this.body = bytes.subarray(box.content, box.end);
    this.timeSize = must(this.body[0] === 0 ? 4 : this.body[0] === 1 ? 8 : null, `${box.type} version`);
    if (this.durationAt + this.timeSize > this.body.byteLength) throw new NotUnderstood(`${box.type} size`);
  }

  private get durationAt(): number {
    return 4 + 2 * this.timeSize + this.middle;
  }

  /** The timescale of an mvhd or mdhd. */
  timescale(): number {
    return new DataView(this.body.buffer, this.body.byteOffset).getUint32(4 + 2 * this.timeSize);
  }

  /** A copy with the duration set; a version-0 box too narrow for it is rewritten as version 1. */
  withDuration(units: number): Uint8Array {
    const { body, durationAt } = this;
    if (this.timeSize === 8 || units <= maxUint32) {
      const copy = body.slice();
      const view = new DataView(copy.buffer);
      if (this.timeSize === 8) view.setBigUint64(durationAt, BigInt(units));
      else view.setUint32(durationAt, units);
      return writeBox(this.box.type, [copy]);
    }
    const narrow = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const wide = new Uint8Array(body.byteLength + 12);
    const view = new DataView(wide.buffer);
    wide.set(body.subarray(0, 4));
    wide[0] = 1;
    view.setBigUint64(4, BigInt(narrow.getUint32(4)));
    view.setBigUint64(12, BigInt(narrow.getUint32(8)));
    wide.set(body.subarray(12, 12 + this.middle), 20);
    view.setBigUint64(20 + this.middle, BigInt(units));
    wide.set(body.subarray(durationAt + 4), 28 + this.middle);
    return writeBox(this.box.type, [wide]);
  }
}

/** Seconds as a count of a timescale's units. */
function unitsOf(durationSec: number, timescale: number, where: string): number {
  const units = Math.round(durationSec * timescale);
  return must(units > 0 && Number.isSafeInteger(units) ? units : null, `duration in the ${where} timescale`);
}

/**
 * A copy of `parent` with each child replaced by what `edit` gives for it (undefined keeps it
 * as it is, null drops it), after the children `first`.
 */
function rebuilt(
  bytes: Uint8Array,
  parent: Box,
  edit: (child: Box) => Uint8Array | null | undefined,
  first: Uint8Array[] = [],
): Uint8Array {
  const children = childrenOf(bytes, parent).flatMap((child) => {
    const edited = edit(child);
    return edited === null ? [] : [edited ?? bytes.subarray(child.start, child.end)];
  });
  return writeBox(parent.type, [...first, ...children]);
}

function patchedMoov(bytes: Uint8Array, moov: Box, durationSec: number): Uint8Array {
  const children = childrenOf(bytes, moov);
  const mvhd = new TimedBox(bytes, must(children.find((child) => child.type === "mvhd"), "mvhd"), 4);
  must(children.find((child) => child.type === "mvex"), "mvex");
  const movieUnits = unitsOf(durationSec, mvhd.timescale(), "movie");

  const mdia = (parent: Box) =>
    rebuilt(bytes, parent, (child) => {
      if (child.type !== "mdhd") return undefined;
      const mdhd = new TimedBox(bytes, child, 4);
      return mdhd.withDuration(unitsOf(durationSec, mdhd.timescale(), "media"));
    });
  const trak = (parent: Box) =>
    rebuilt(
      bytes,
      parent,
      (child) =>
        child.type === "tkhd"
          ? new TimedBox(bytes, child, 8).withDuration(movieUnits)
          : child.type === "mdia"
          ? mdia(child)
          : undefined,
    );
  return rebuilt(bytes, moov, (child) => {
    switch (child.type) {
      case "mvhd":
        return mvhd.withDuration(movieUnits);
      case "trak":
        return trak(child);
      // A mehd already there is replaced; the new one goes first, as the standard orders it.
      case "mvex":
        return rebuilt(bytes, child, (c) => (c.type === "mehd" ? null : undefined), [mehd(movieUnits)]);
      default:
        return undefined;
    }
  });
}

/**
 * The bytes with the movie's duration written into the moov box (see the top of this file),
 * sizes adjusted. `bytes` starts with ftyp and holds all of moov; what follows moov is kept
 * as it is. Anything else comes back unchanged, as does a duration that is not a positive
 * number of seconds.
 */
export function withMovieDuration(bytes: Uint8Array, durationSec: number): Uint8Array {
  if (!(durationSec > 0) || !Number.isFinite(durationSec)) return bytes;
  const search = findMoov(bytes);
  if (search.moov === null) return bytes;
  const { moov } = search;
  let newMoov: Uint8Array;
  try {
    newMoov = patchedMoov(bytes, moov, durationSec);
  } catch (error) {
    if (error instanceof NotUnderstood) return bytes;
    throw error;
  }
  const out = new Uint8Array(bytes.byteLength - (moov.end - moov.start) + newMoov.byteLength);
  out.set(bytes.subarray(0, moov.start));
  out.set(newMoov, moov.start);
  out.set(bytes.subarray(moov.end), moov.start + newMoov.byteLength);
  return out;
}

/** ffmpeg's moov is about 1.3 KB; a stream that has not brought one by this point is not what we expect. */
export const defaultMaxHeldBytes = 1024 * 1024;

/**
 * `source` with its init segment given the duration (see withMovieDuration). Only the bytes
 * up to the end of moov are held back (at most `maxHeldBytes`; past that, or when the stream
 * does not look like MP4, they go out unchanged); every later chunk passes through as it is.
 * Cancelling the result cancels `source`, and an error of `source` errors the result.
 */
export function withMovieDurationStream(
  source: ReadableStream<Uint8Array>,
  durationSec: number,
  maxHeldBytes = defaultMaxHeldBytes,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let held: Uint8Array | null = new Uint8Array(0);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Each pull must enqueue or close: a stream does not pull again after one that did neither.
      for (;;) {
        const { done, value } = await reader.read();
        if (held === null) {
          if (done) controller.close();
          else controller.enqueue(value);
          return;
        }
        if (!done) held = concat(held, value);
        const search = findMoov(held);
        if (search.moov === null && search.wait && !done && held.byteLength < maxHeldBytes) continue;
        const out = search.moov === null ? held : withMovieDuration(held, durationSec);
        held = null;
        if (out.byteLength > 0) controller.enqueue(out);
        if (done) controller.close();
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
