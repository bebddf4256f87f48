// The slot a plan costs, and a relay asked for as MP3: pure functions of media/plan.ts.
import { describe, expect, test } from "vitest";
import { assertDirectUrl } from "../../src/http/direct-hosts.ts";
import type { RemuxPlan } from "../../src/media/ffmpeg.ts";
import { relayAsRemux, type RelayPlan, type RemuxJob, slotOf } from "../../src/media/plan.ts";

const relay: RelayPlan = {
  kind: "relay",
  url: new URL("https://video.twimg.com/ext_tw_video/1/pu/vid/1280x720/a.mp4?tag=12"),
  allowed: assertDirectUrl,
  name: "x_20",
};
const copy: RemuxPlan = {
  output: "mp4",
  inputs: [{ url: "https://cdn.example/v.mp4", headers: {}, hls: false }],
  videoInput: 0,
  audioInput: 0,
  transcodeVideo: false,
  transcodeAudio: false,
  adtsAudio: false,
};
const job = (ffmpeg: RemuxPlan): RemuxJob => ({ kind: "remux", ffmpeg, name: "page_1", durationSec: 12.5 });

describe("slotOf()", () => {
  test("a relay holds a direct slot, a stream copy a remux slot, MP3 and a re-encode an encode slot", () => {
    expect(slotOf(relay)).toBe("directDownloads");
    expect(slotOf(job(copy))).toBe("remuxes");
    expect(slotOf(job({ ...copy, output: "mp3", videoInput: null }))).toBe("encodes");
    expect(slotOf(job({ ...copy, transcodeVideo: true }))).toBe("encodes");
    expect(slotOf(job({ ...copy, transcodeAudio: true }))).toBe("encodes");
  });
});

describe("relayAsRemux()", () => {
  test("reads the relay's file, from the operator's override origin, and keeps its name", () => {
    const overrides = new Map([["video.twimg.com", "http://127.0.0.1:9000"]]);
    expect(relayAsRemux(relay, "mp3", overrides)).toEqual({
      kind: "remux",
      ffmpeg: {
        output: "mp3",
        inputs: [{ url: "http://127.0.0.1:9000/ext_tw_video/1/pu/vid/1280x720/a.mp4?tag=12", headers: {}, hls: false }],
        videoInput: null,
        audioInput: 0,
        transcodeVideo: false,
        transcodeAudio: false,
        adtsAudio: false,
      },
      name: "x_20",
      durationSec: null,
    });
  });

  test("reads an HLS playlist as HLS, and the file itself without an override", () => {
    const playlist: RelayPlan = { ...relay, url: new URL("https://video.twimg.com/pl/a.m3u8") };
    expect(relayAsRemux(playlist, "mp3", new Map()).ffmpeg.inputs).toEqual([{
      url: "https://video.twimg.com/pl/a.m3u8",
      headers: {},
      hls: true,
    }]);
  });

  test("as a clip it is MP4 of the file's video and sound, an HLS stream's sound rewritten from ADTS", () => {
    expect(relayAsRemux(relay, "mp4", new Map()).ffmpeg).toMatchObject({
      videoInput: 0,
      audioInput: 0,
      adtsAudio: false,
    });
    const playlist: RelayPlan = { ...relay, url: new URL("https://video.twimg.com/pl/a.m3u8") };
    expect(relayAsRemux(playlist, "mp4", new Map()).ffmpeg).toMatchObject({ videoInput: 0, adtsAudio: true });
  });
});
