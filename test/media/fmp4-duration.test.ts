import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, test } from "vitest";
import { classifyFfmpegFailure } from "../../src/media/ffmpeg.ts";
import { withMovieDuration, withMovieDurationStream } from "../../src/media/fmp4-duration.ts";
import { spawnStream } from "../../src/processes/child-stream.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";
import { initSegment, probeMedia } from "../helpers/media.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);
const fragmentedArgs = ["-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4", "pipe:1"];
const videoArgs = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p"];

/** 2 s of video and sound as page mode's ffmpeg writes it: one fragment a second. */
let file: Uint8Array;
let init: Uint8Array;

beforeAll(async () => {
  const { stdout } = await run("ffmpeg", [
    "-nostdin",
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    "testsrc=size=160x120:rate=25",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=44100",
    "-t",
    "2",
    ...videoArgs,
    "-c:a",
    "aac",
    "-b:a",
    "64k",
    ...fragmentedArgs,
  ], { encoding: "buffer", maxBuffer: 16 * 1024 * 1024 });
  file = new Uint8Array(stdout);
  init = initSegment(file);
});

interface TestBox {
  type: string;
  start: number;
  end: number;
  /** After size and type. */
  body: Uint8Array;
}

function boxesIn(bytes: Uint8Array, from = 0, to = bytes.byteLength): TestBox[] {
  const boxes: TestBox[] = [];
  for (let at = from; at < to;) {
    const size = new DataView(bytes.buffer, bytes.byteOffset).getUint32(at);
    boxes.push({
      type: String.fromCharCode(...bytes.subarray(at + 4, at + 8)),
      start: at,
      end: at + size,
      body: bytes.subarray(at + 8, at + size),
    });
    at += size;
  }
  return boxes;
}

/** Every box at the end of `path` (for example moov, trak, mdia, mdhd). */
function find(bytes: Uint8Array, path: string[]): TestBox[] {
  let level = boxesIn(bytes).filter((b) => b.type === path[0]);
  for (const type of path.slice(1)) {
    level = level.flatMap((parent) => boxesIn(bytes, parent.start + 8, parent.end).filter((b) => b.type === type));
  }
  return level;
}

/** Version, and the duration of an mvhd, mdhd (durationAfter 4) or tkhd (8), or the fragment_duration of mehd (0). */
function durationField(box: TestBox, durationAfter: number): { version: number; duration: number } {
  const view = new DataView(box.body.buffer, box.body.byteOffset, box.body.byteLength);
  const version = box.body[0]!;
  const at = 4 + (box.type === "mehd" ? 0 : version === 1 ? 16 : 8) + durationAfter;
  return { version, duration: version === 1 ? Number(view.getBigUint64(at)) : view.getUint32(at) };
}

const timescaleOf = (box: TestBox) =>
  new DataView(box.body.buffer, box.body.byteOffset).getUint32(box.body[0] === 1 ? 20 : 12);

function streamOf(chunks: Uint8Array[], cancelled?: (reason: unknown) => void): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else controller.close();
    },
    cancel: cancelled,
  });
}

function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

async function readChunks(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return chunks;
}

const joined = (chunks: Uint8Array[]) => new Uint8Array(Buffer.concat(chunks));

describe("withMovieDuration()", () => {
  test("an init segment alone then tells ffprobe the duration; ffmpeg's own tells none", async () => {
    expect((await probeMedia(init)).duration).toBeNaN();
    const probed = await probeMedia(withMovieDuration(init, 7.25));
    expect(probed.duration).toBeCloseTo(7.25, 3);
    expect(probed.streams.sort()).toEqual(["aac", "h264"]);
  });

  test("with the first fragment, ffprobe reports the whole length rather than that fragment's", async () => {
    const firstFragment = find(file, ["moof"])[1]!.start;
    const start = file.subarray(0, firstFragment);
    expect((await probeMedia(start)).duration).toBeLessThan(1.5);
    expect((await probeMedia(withMovieDuration(start, 2))).duration).toBeCloseTo(2, 2);
  });

  test("writes mvhd, tkhd, mdhd and a first mehd in mvex, fixes the sizes, and leaves all else as it was", async () => {
    const patched = withMovieDuration(file, 2.5);
    const [moov] = find(patched, ["moov"]);
    const [oldMoov] = find(file, ["moov"]);
    expect(patched.byteLength).toBe(file.byteLength + 16);
    expect(patched.subarray(0, moov!.start)).toEqual(file.subarray(0, oldMoov!.start));
    expect(patched.subarray(moov!.end)).toEqual(file.subarray(oldMoov!.end));
    expect(moov!.end - moov!.start).toBe(oldMoov!.end - oldMoov!.start + 16);

    expect(durationField(find(patched, ["moov", "mvhd"])[0]!, 4)).toEqual({ version: 0, duration: 2500 });
    const mvex = boxesIn(
      patched,
      find(patched, ["moov", "mvex"])[0]!.start + 8,
      find(patched, ["moov", "mvex"])[0]!.end,
    );
    expect(mvex.map((b) => b.type)).toEqual(["mehd", "trex", "trex"]);
    expect(durationField(mvex[0]!, 0)).toEqual({ version: 0, duration: 2500 });
    expect(mvex.slice(1).map((b) => b.body)).toEqual(find(file, ["moov", "mvex", "trex"]).map((b) => b.body));
    expect(find(patched, ["moov", "trak", "tkhd"]).map((b) => durationField(b, 8))).toEqual([{
      version: 0,
      duration: 2500,
    }, { version: 0, duration: 2500 }]);
    const mdhds = find(patched, ["moov", "trak", "mdia", "mdhd"]);
    expect(mdhds.map((b) => durationField(b, 4).duration)).toEqual(mdhds.map((b) => 2.5 * timescaleOf(b)));

    // Still a whole, playable file: ffprobe reads every fragment of a file it can seek in.
    const probed = await probeMedia(withMovieDuration(file, 2));
    expect(probed.streams.sort()).toEqual(["aac", "h264"]);
    expect(probed.duration).toBeCloseTo(2, 1);
  });

  test("gives a third, mov_text subtitle track the duration too", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "fmp4-subs-"));
    try {
      await writeFile(path.join(dir, "en.vtt"), "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello\n");
      const { stdout } = await run("ffmpeg", [
        "-nostdin",
        "-v",
        "error",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=160x120:rate=25",
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:sample_rate=44100",
        "-i",
        path.join(dir, "en.vtt"),
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-map",
        "2:s",
        "-t",
        "2",
        ...videoArgs,
        "-c:a",
        "aac",
        "-c:s",
        "mov_text",
        "-metadata:s:s:0",
        "language=eng",
        ...fragmentedArgs,
      ], { encoding: "buffer", maxBuffer: 16 * 1024 * 1024 });
      const subtitled = initSegment(new Uint8Array(stdout));
      const patched = withMovieDuration(subtitled, 2.5);
      expect(patched).not.toEqual(subtitled);
      const mdhds = find(patched, ["moov", "trak", "mdia", "mdhd"]);
      expect(mdhds).toHaveLength(3);
      expect(mdhds.map((b) => durationField(b, 4).duration)).toEqual(mdhds.map((b) => 2.5 * timescaleOf(b)));
      expect(find(patched, ["moov", "trak", "tkhd"]).map((b) => durationField(b, 8).duration)).toEqual([
        2500,
        2500,
        2500,
      ]);
      const probed = await probeMedia(patched);
      expect(probed.duration).toBeCloseTo(2.5, 3);
      expect(probed.streams.sort()).toEqual(["aac", "h264", "mov_text"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("goes to version 1 where 32 bits are too few (60 days), keeping the other fields", async () => {
    const days60 = 60 * 24 * 3600;
    const patched = withMovieDuration(init, days60);
    const [mvhd] = find(patched, ["moov", "mvhd"]);
    const [oldMvhd] = find(init, ["moov", "mvhd"]);
    expect(durationField(mvhd!, 4)).toEqual({ version: 1, duration: days60 * 1000 });
    expect(timescaleOf(mvhd!)).toBe(1000);
    expect(mvhd!.body.subarray(32)).toEqual(oldMvhd!.body.subarray(20)); // rate, volume, matrix, next track id
    expect(durationField(find(patched, ["moov", "mvex", "mehd"])[0]!, 0)).toEqual({
      version: 1,
      duration: days60 * 1000,
    });
    expect(find(patched, ["moov", "trak", "tkhd"]).map((b) => durationField(b, 8))).toEqual([
      { version: 1, duration: days60 * 1000 },
      { version: 1, duration: days60 * 1000 },
    ]);
    const mdhds = find(patched, ["moov", "trak", "mdia", "mdhd"]);
    expect(mdhds.map((b) => durationField(b, 4))).toEqual(
      mdhds.map((b) => ({ version: 1, duration: days60 * timescaleOf(b) })),
    );
    expect((await probeMedia(patched)).duration).toBe(days60);
  });

  test("rewrites version-1 boxes in place and replaces a mehd already there", async () => {
    const wide = withMovieDuration(init, 60 * 24 * 3600);
    const patched = withMovieDuration(wide, 3);
    expect(patched.byteLength).toBe(wide.byteLength - 4); // mehd back to version 0
    expect(durationField(find(patched, ["moov", "mvhd"])[0]!, 4)).toEqual({ version: 1, duration: 3000 });
    expect(find(patched, ["moov", "mvex", "mehd"]).map((b) => durationField(b, 0))).toEqual([{
      version: 0,
      duration: 3000,
    }]);
    expect((await probeMedia(patched)).duration).toBeCloseTo(3, 3);
  });

  test("returns the bytes unchanged when they are not what it expects", () => {
    const renamed = (type: string, to: string) => {
      const copy = init.slice();
      copy.set(Buffer.from(to), find(copy, type.split("/"))[0]!.start + 4);
      return copy;
    };
    const mvhdVersion2 = init.slice();
    mvhdVersion2[find(mvhdVersion2, ["moov", "mvhd"])[0]!.start + 8] = 2;
    const trakTooLong = init.slice();
    const trak = find(trakTooLong, ["moov", "trak"])[0]!;
    new DataView(trakTooLong.buffer).setUint32(trak.start, 100_000);
    const cases = [
      new Uint8Array(0),
      new Uint8Array(Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00 not an MP4 at all")),
      init.subarray(0, init.byteLength - 10), // moov cut off
      renamed("moov/mvex", "mvez"), // not fragmented
      renamed("moov/mvhd", "mvhx"),
      renamed("ftyp", "free"),
      mvhdVersion2,
      trakTooLong,
    ];
    for (const bytes of cases) expect(withMovieDuration(bytes, 2)).toBe(bytes);
    for (const duration of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(withMovieDuration(init, duration)).toBe(init);
    }
  });
});

describe("withMovieDurationStream()", () => {
  test("patches the init segment however the chunks split it, and passes later chunks through untouched", async () => {
    const expected = withMovieDuration(file, 2.5);
    for (const size of [1, 7, 100, 1000, file.byteLength]) {
      const source = chunksOf(file, size);
      const out = await readChunks(withMovieDurationStream(streamOf(source), 2.5));
      expect(joined(out)).toEqual(expected);
      // The same chunk objects after the init segment: nothing copied.
      const heldChunks = Math.ceil(init.byteLength / size);
      expect(out.slice(1)).toHaveLength(source.length - heldChunks);
      out.slice(1).forEach((chunk, i) => expect(chunk).toBe(source[heldChunks + i]));
    }
  });

  test("passes bytes through unchanged when they are not MP4, have no moov within the limit, or end first", async () => {
    const garbage = new Uint8Array(Buffer.from("\xff\xfb\x90\x64 an MP3 frame, say, and more bytes"));
    expect(joined(await readChunks(withMovieDurationStream(streamOf(chunksOf(garbage, 3)), 2)))).toEqual(garbage);
    expect(joined(await readChunks(withMovieDurationStream(streamOf(chunksOf(file, 100)), 2, 1000)))).toEqual(file);
    const cut = init.subarray(0, 1000);
    expect(joined(await readChunks(withMovieDurationStream(streamOf(chunksOf(cut, 100)), 2)))).toEqual(cut);
    expect(await readChunks(withMovieDurationStream(streamOf([]), 2))).toEqual([]);
  });

  test("cancelling it cancels the source, while it holds bytes and after", async () => {
    // 100-byte chunks up to `stallAt`, then silence, as from an ffmpeg waiting for its input.
    for (const stallAt of [500, 2000]) {
      const chunks = chunksOf(file.subarray(0, stallAt), 100);
      const reasons: unknown[] = [];
      const source = new ReadableStream<Uint8Array>({
        pull: (controller) => (chunks.length > 0 ? controller.enqueue(chunks.shift()!) : new Promise<void>(() => {})),
        cancel: (reason) => void reasons.push(reason),
      });
      const reader = withMovieDurationStream(source, 2).getReader();
      const held = Math.ceil(init.byteLength / 100) * 100;
      if (stallAt > held) expect((await reader.read()).value).toEqual(withMovieDuration(file.subarray(0, held), 2));
      await reader.cancel("gone");
      expect(reasons).toEqual(["gone"]);
    }
  });

  test("fails when the source fails", async () => {
    const failure = new Error("ffmpeg failed");
    let sent = false;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(failure);
        else controller.enqueue(file);
        sent = true;
      },
    });
    const reader = withMovieDurationStream(source, 2).getReader();
    expect((await reader.read()).value).toEqual(withMovieDuration(file, 2));
    await expect(reader.read()).rejects.toBe(failure);
  });

  test("on a live ffmpeg: its first chunk gets the duration, and cancelling ends ffmpeg", async () => {
    const child = spawnStream(nodeProcesses, "ffmpeg", [
      "-nostdin",
      "-v",
      "error",
      "-re",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=160x120:rate=25",
      ...videoArgs,
      ...fragmentedArgs,
    ], { classify: classifyFfmpegFailure });
    const reader = withMovieDurationStream(child.stdout, 12.5).getReader();
    const first = (await reader.read()).value!;
    expect((await probeMedia(initSegment(first))).duration).toBeCloseTo(12.5, 3);
    const ended = Promise.race([
      child.exited.then(() => "exited"),
      new Promise((resolve) => setTimeout(resolve, scaled(3000), "still running")),
    ]);
    await reader.cancel();
    expect(await ended).toBe("exited");
  });
});
