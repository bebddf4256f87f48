import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, test } from "vitest";
import { type FfmpegInput, outputArgs } from "../../src/media/ffmpeg.ts";
import { fragmentClock } from "../../src/media/fmp4-clock.ts";
import { initSegment, probeMedia } from "../helpers/media.ts";

const run = promisify(execFile);

/** Made by ffmpeg from what the test gives it on its command line, not from these links. */
const given: FfmpegInput = { url: "given", headers: {}, hls: false };
const plan = { videoInput: null, audioInput: 0, transcodeVideo: false, transcodeAudio: false, adtsAudio: false };

/**
 * 3 s of video and sound written as page mode writes MP4 (encoded, a keyframe and so a fragment a
 * second), and that MP4's sound as page mode writes M4A (copied).
 */
let mp4: Uint8Array;
let m4a: Uint8Array;

beforeAll(async () => {
  const encoded = outputArgs.mp4({
    ...plan,
    output: "mp4",
    inputs: [given, given],
    videoInput: 0,
    audioInput: 1,
    transcodeVideo: true,
    transcodeAudio: true,
  });
  mp4 = new Uint8Array(
    (await run("ffmpeg", [
      ...["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-f", "lavfi"],
      ...["-i", "sine=frequency=440:sample_rate=44100", "-t", "3", "-g", "25", ...encoded, "pipe:1"],
    ], { encoding: "buffer" })).stdout,
  );
  const copied = outputArgs.m4a({ ...plan, output: "m4a", inputs: [given] });
  m4a = new Uint8Array(execFileSync("ffmpeg", ["-v", "error", "-i", "pipe:0", ...copied, "pipe:1"], { input: mp4 }));
});

/** The clock's seconds after each chunk of `bytes` cut `size` bytes long, as they changed. */
function readInChunks(bytes: Uint8Array, size: number): { seen: number[]; last: number | null } {
  const clock = fragmentClock();
  const seen: number[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) {
    clock.read(bytes.slice(at, at + size));
    const seconds = clock.seconds();
    if (seconds !== null && seconds !== seen.at(-1)) seen.push(seconds);
  }
  return { seen, last: clock.seconds() };
}

describe("fragmentClock()", () => {
  test("says the file's length, as ffprobe reads it, however the bytes are cut", async () => {
    for (const file of [mp4, m4a]) {
      const { duration } = await probeMedia(file);
      for (const size of [1, 13, 4096, file.byteLength]) {
        expect(readInChunks(file, size).last).toBeCloseTo(duration, 2);
      }
    }
  });

  test("grows fragment by fragment as the file passes, nothing before the first", () => {
    const { seen } = readInChunks(m4a, 1000);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen[0]).toBeLessThan(1.5);
    const clock = fragmentClock();
    clock.read(initSegment(m4a));
    expect(clock.seconds()).toBeNull();
  });

  test("bytes that are not fragmented MP4 give no length, and do not throw", () => {
    const clock = fragmentClock();
    clock.read(new TextEncoder().encode("ID3\u0003 not an MP4 file at all, only words"));
    clock.read(mp4);
    expect(clock.seconds()).toBeNull();
  });
});
