import { describe, expect, test } from "vitest";
import type { RemuxPlan } from "../../src/media/ffmpeg.ts";
import { estimatedBytes } from "../../src/media/remux.ts";

const input = (sizeBytes?: number) => ({ url: "https://cdn/f", headers: {}, hls: false, sizeBytes });
const plan = (output: "mp4" | "mp3", sizes: (number | undefined)[]): RemuxPlan => ({
  output,
  inputs: sizes.map(input),
  videoInput: 0,
  audioInput: sizes.length - 1,
  transcodeVideo: false,
  transcodeAudio: false,
  adtsAudio: false,
});

describe("estimatedBytes()", () => {
  test("MP4: the sum of the sources' sizes, when every one is known", () => {
    expect(estimatedBytes(plan("mp4", [15_062_619, 1_973_587]), 142)).toBe(17_036_206);
    expect(estimatedBytes(plan("mp4", [15_062_619.4]), null)).toBe(15_062_619);
    expect(estimatedBytes(plan("mp4", [15_062_619, undefined]), 142)).toBeNull();
    expect(estimatedBytes(plan("mp4", [0]), 142)).toBeNull();
  });

  test("MP3: the length at 320 kbit/s, whatever the source weighs", () => {
    expect(estimatedBytes(plan("mp3", [1_973_587]), 142.5)).toBe(5_700_000);
    expect(estimatedBytes(plan("mp3", [1_973_587]), null)).toBeNull();
  });
});
