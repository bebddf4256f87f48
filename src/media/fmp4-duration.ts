// Gives fragmented MP4 from ffmpeg a duration. With `empty_moov` (needed to write to a pipe)
// the init segment says 0 everywhere, so players show no length and cannot seek until they
// have read the whole file. When the length is known up front (yt-dlp says it), it is written
// where players look before any fragment: the Movie Extends Header (mehd in mvex, ISO/IEC
// 14496-12 8.8.2, the standard's place for the length of a fragmented movie), the movie
// header (mvhd), and each track's tkhd and mdhd: ffmpeg-based players take the length from
// mdhd alone (measured with ffprobe 5.1: mvhd and mehd without mdhd change nothing). Bytes
// laid out otherwise pass unchanged: a download must never break over a nicety.

import { concatBytes } from "../util/bytes.ts";
import { type Box, childrenOf, maxUint32, must, NotUnderstood, readBox, TimedBox, writeBox } from "./mp4-boxes.ts";

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

/** mehd: version 1 (64-bit) only when the duration needs it. */
function mehd(units: number): Uint8Array {
  const wide = units > maxUint32;
  const body = new Uint8Array(wide ? 12 : 8);
  body[0] = wide ? 1 : 0;
  if (wide) new DataView(body.buffer).setBigUint64(4, BigInt(units));
  else new DataView(body.buffer).setUint32(4, units);
  return writeBox("mehd", [body]);
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
        if (!done) held = concatBytes(held, value);
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
