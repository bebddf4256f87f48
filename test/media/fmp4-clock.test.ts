import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, test } from "vitest";
import { fragmentClock } from "../../src/media/fmp4-clock.ts";
import { initSegment, probeMedia } from "../helpers/media.ts";

const run = promisify(execFile);

/** 3 s of video and sound as page mode's ffmpeg writes MP4 (a fragment a keyframe, one a second), and its sound as M4A. */
let mp4: Uint8Array;
let m4a: Uint8Array;

beforeAll(async () => {
  const made = (args: string[]) =>
    run("ffmpeg", [
      ...["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-f", "lavfi"],
      ...["-i", "sine=frequency=440:sample_rate=44100", "-t", "3", ...args, "pipe:1"],
    ], { encoding: "buffer" }).then(({ stdout }) => new Uint8Array(stdout));
  [mp4, m4a] = await Promise.all([
    made([
      ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac"],
      ...["-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4"],
    ]),
    made([
      "-map",
      "1:a",
      "-c:a",
      "aac",
      "-movflags",
      "empty_moov+default_base_moof",
      "-frag_duration",
      "1000000",
      "-f",
      "mp4",
    ]),
  ]);
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
