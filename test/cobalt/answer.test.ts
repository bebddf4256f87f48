// cobalt's answers made of our records, without a service: which file is a `redirect` (cobalt's
// rules, api/src/processing/match-action.js, as test/fakes/cobalt-clients/PROVENANCE.md says), the
// download each tunnel asks for (`mute`, `audio`), the picker's `thumb` and a slideshow's `audio`.
import { describe, expect, it } from "vitest";
import { cobaltAnswer, NothingToSend } from "../../src/cobalt/answer.ts";
import { readCobaltRequest } from "../../src/cobalt/request.ts";
import type { LinkedPostMediaItem, LinkedPostRecord } from "../../src/platforms/records.ts";

const CDN = "https://video.twimg.com/ext_tw_video/1/pu/vid/1280x720/clip.mp4";

function video(url: string | null, variants = ["720p", "360p"]): LinkedPostMediaItem {
  return {
    type: "video",
    url,
    posterUrl: "https://pbs.twimg.com/ext_tw_video_thumb/1/pu/img/poster.jpg",
    width: 1280,
    height: 720,
    durationSec: 10,
    altText: null,
    downloadUrl: "https://api.example/api/v1/download?kid=k",
    videoVariants: variants.map((label) => ({
      qualityLabel: label,
      formatId: `f-${label}`,
      contentType: label === "audio" ? "audio/mp4" : "video/mp4",
      downloadUrl: "https://api.example/api/v1/download?kid=k",
    })),
  };
}

function photo(url: string): LinkedPostMediaItem {
  return { ...video(url, []), type: "photo", posterUrl: null, durationSec: null };
}

function record(media: LinkedPostMediaItem[], overrides: Partial<LinkedPostRecord> = {}): LinkedPostRecord {
  return {
    platform: "X",
    id: "1",
    url: "https://x.com/NASA/status/1",
    text: "A launch",
    authorName: "NASA",
    durationSec: null,
    posterUrl: null,
    needsServerProcessing: false,
    videoVariants: [],
    imageUrls: [],
    media,
    subtitles: [],
    card: null,
    downloadUrl: "https://api.example/api/v1/download?kid=k",
    ...overrides,
  };
}

/** Each tunnel is its download's parameters, as JSON: what the door would sign. */
const tunnel = (params: Record<string, string>) => Promise.resolve(JSON.stringify(params));
const ask = (body: Record<string, unknown>, post: LinkedPostRecord) =>
  cobaltAnswer(post, readCobaltRequest({ url: post.url, ...body })!, tunnel);
const paramsOf = (url: string) => JSON.parse(url) as Record<string, string>;

describe("cobalt's redirect", () => {
  it("hands one video the platform serves as one file to the client, as cobalt does a tweet's", async () => {
    const answer = await ask({}, record([video(CDN)]));
    expect(answer).toEqual({ status: "redirect", url: CDN, filename: "A launch - NASA (720p).mp4" });
    expect(await ask({ localProcessing: "preferred" }, record([video(CDN)]))).toMatchObject({ status: "redirect" });
  });

  it("is a tunnel when the client asks that all pass through, forces local processing, or asks a remux", async () => {
    const post = record([video(CDN)]);
    expect((await ask({ alwaysProxy: true }, post)).status).toBe("tunnel");
    expect((await ask({ localProcessing: "forced" }, post)).status).toBe("local-processing");
    expect((await ask({ downloadMode: "mute" }, post)).status).toBe("tunnel");
    expect((await ask({ downloadMode: "audio" }, post)).status).toBe("tunnel");
  });

  it("is a tunnel for a lower variant than the file the record names, a page-mode item, a photo and page mode", async () => {
    expect((await ask({ videoQuality: "360" }, record([video(CDN)]))).status).toBe("tunnel");
    expect((await ask({}, record([video(null)]))).status).toBe("tunnel");
    expect((await ask({}, record([photo("https://pbs.twimg.com/media/a.jpg")]))).status).toBe("tunnel");
    const page = record([], { platform: "OTHER", needsServerProcessing: true });
    expect((await ask({}, page)).status).toBe("tunnel");
  });
});

describe("cobalt's downloadMode: mute", () => {
  it("asks the download for the video without its sound, named as cobalt names it", async () => {
    const answer = await ask({ downloadMode: "mute" }, record([video(CDN)]));
    expect(answer).toMatchObject({ status: "tunnel", filename: "A launch - NASA (720p, mute).mp4" });
    expect(paramsOf((answer as { url: string }).url)).toMatchObject({ index: "1", mute: "true" });
    const page = await ask({ downloadMode: "mute" }, record([], { platform: "OTHER", needsServerProcessing: true }));
    expect(paramsOf((page as { url: string }).url)).toMatchObject({ mute: "true" });
  });

  it("has nothing to send for photos alone", async () => {
    await expect(ask({ downloadMode: "mute" }, record([photo("https://pbs.twimg.com/media/a.jpg")]))).rejects
      .toEqual(new NothingToSend("fetch.empty"));
  });
});

describe("cobalt's audioFormat", () => {
  const audioOf = async (audioFormat: string, post = record([video(CDN)])) => {
    const answer = await ask({ downloadMode: "audio", audioFormat }, post) as { url: string; filename: string };
    return [paramsOf(answer.url).audio, answer.filename.slice(answer.filename.lastIndexOf(".") + 1)];
  };

  it("is our MP3 or the source's AAC as it is", async () => {
    expect(await audioOf("mp3")).toEqual(["mp3", "mp3"]);
    expect(await audioOf("m4a")).toEqual(["m4a", "m4a"]);
    // best: a relayed MP4's sound copied; a page-mode item's codec is not known before its download, so MP3.
    expect(await audioOf("best")).toEqual(["m4a", "m4a"]);
    expect(await audioOf("best", record([video(null)]))).toEqual(["mp3", "mp3"]);
  });

  it("answers cobalt's audio_not_supported for what no download of ours makes", async () => {
    for (const format of ["ogg", "opus", "wav"]) {
      await expect(audioOf(format)).rejects.toEqual(new NothingToSend("service.audio_not_supported"));
    }
  });
});

describe("cobalt's picker", () => {
  it("gives each entry a thumb: a video's poster, a photo itself", async () => {
    const photoUrl = "https://pbs.twimg.com/media/a.jpg";
    const answer = await ask({}, record([photo(photoUrl), video(CDN), { ...video(CDN), posterUrl: null }]));
    expect(answer.status).toBe("picker");
    const picker = (answer as unknown as { picker: Record<string, string>[] }).picker;
    expect(picker.map((entry) => entry.thumb)).toEqual([photoUrl, video(CDN).posterUrl, undefined]);
    expect(picker.map((entry) => paramsOf(entry.url!).index)).toEqual(["1", "2", "3"]);
  });

  it("gives a slideshow's sound as audio and audioFilename, the pictures as its entries", async () => {
    const slideshow = record([
      photo("https://p16.tiktokcdn.com/a.jpg"),
      photo("https://p16.tiktokcdn.com/b.jpg"),
      video(null, ["audio"]),
    ], { platform: "TIKTOK" });
    const answer = await ask({ filenameStyle: "classic" }, slideshow) as Record<string, unknown>;
    expect(answer.status).toBe("picker");
    expect((answer.picker as unknown[]).length).toBe(2);
    expect(answer.audioFilename).toBe("tiktok_1_audio.mp3");
    expect(paramsOf(answer.audio as string)).toMatchObject({ index: "3", audio: "mp3" });
    // A sound format we cannot make leaves the sound out, not the pictures.
    const ogg = await ask({ audioFormat: "ogg" }, slideshow) as Record<string, unknown>;
    expect([ogg.status, ogg.audio]).toEqual(["picker", undefined]);
  });
});
