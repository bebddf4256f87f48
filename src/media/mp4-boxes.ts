// Reading and writing MP4 boxes (ISO/IEC 14496-12): a box's header, the boxes inside another,
// and the header boxes whose duration fields are laid out alike. Pure; fmp4-duration.ts writes
// a fragmented MP4's length with them, fmp4-clock.ts reads how far its fragments have come.

export interface Box {
  type: string;
  start: number;
  /** Where the box's content begins (after size, type and any 64-bit size). */
  content: number;
  end: number;
}

/** The box at `start`, or null when its header is cut off or its size is impossible. */
export function readBox(bytes: Uint8Array, start: number): Box | null {
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

export class NotUnderstood extends Error {}

export function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new NotUnderstood(what);
  return value;
}

/** The boxes that exactly fill the content of `parent`. */
export function childrenOf(bytes: Uint8Array, parent: Box): Box[] {
  const boxes: Box[] = [];
  for (let at = parent.content; at < parent.end;) {
    const box = readBox(bytes, at);
    if (box === null || box.end > parent.end) throw new NotUnderstood(`the children of ${parent.type}`);
    boxes.push(box);
    at = box.end;
  }
  return boxes;
}

export function writeBox(type: string, parts: Uint8Array[]): Uint8Array {
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

export const maxUint32 = 0xffff_ffff;

/**
 * mvhd, tkhd and mdhd begin alike: version and flags; creation and modification times (32
 * bits each in version 0, 64 in version 1); `middle` bytes (the timescale, or in tkhd the
 * track id and a reserved word); then the duration, as wide as the times.
 */
export class TimedBox {
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
