import { describe, expect, test } from "vitest";
import { PostRecord } from "../../../../src/platforms/records.ts";
import { YtdlpInfo } from "../../../../src/platforms/tools/ytdlp/info.ts";
import { infoToPost } from "../../../../src/platforms/tools/ytdlp/post.ts";
import { ytdlpFixture } from "./fixtures.ts";

const page = new URL("https://example.com/page");
/** A file of the page's own, for a test about the record's other fields. */
const aFile = { url: "https://example.com/clip.mp4", ext: "mp4", vcodec: "avc1", acodec: "mp4a" };

describe("infoToPost() on recorded yt-dlp output", () => {
  test("YouTube: one H.264 variant per height, merged with AAC where the format has no sound", () => {
    const post = infoToPost(ytdlpFixture("youtube_hwMkbaS_M_c"), "YOUTUBE", new URL("https://youtu.be/hwMkbaS_M_c"));
    expect(PostRecord.parse(post)).toEqual(post);
    expect(post).toMatchObject({
      platform: "YOUTUBE",
      id: "hwMkbaS_M_c",
      url: "https://www.youtube.com/watch?v=hwMkbaS_M_c",
      text: "Star Wars 8 THE LAST JEDI Official TRAILER (2017) Daisy Ridley, Disney Movie HD",
      authorName: "ONE Media",
      durationSec: 142,
      posterUrl: "https://i.ytimg.com/vi_webp/hwMkbaS_M_c/maxresdefault.webp",
      needsServerProcessing: true,
      imageUrls: [],
    });
    expect(post.videoVariants).toEqual([
      { qualityLabel: "1080p", formatId: "137+ba[ext=m4a]/137+ba/137", contentType: "video/mp4" },
      { qualityLabel: "720p", formatId: "22", contentType: "video/mp4" },
      { qualityLabel: "480p", formatId: "135+ba[ext=m4a]/135+ba/135", contentType: "video/mp4" },
      { qualityLabel: "360p", formatId: "18", contentType: "video/mp4" },
      { qualityLabel: "240p", formatId: "133+ba[ext=m4a]/133+ba/133", contentType: "video/mp4" },
      { qualityLabel: "144p", formatId: "160+ba[ext=m4a]/160+ba/160", contentType: "video/mp4" },
    ]);
  });

  test("YouTube (2023 recording): storyboards and audio-only formats are not variants", () => {
    const post = infoToPost(ytdlpFixture("youtube_JjQDik3yNhA_2023-06-29"), "YOUTUBE", page);
    expect(post).toMatchObject({
      id: "JjQDik3yNhA",
      text: "This is Why Nintendo Shutdown the Miiverse",
      authorName: "Mental Outlaw",
      durationSec: 968,
      posterUrl: "https://i.ytimg.com/vi/JjQDik3yNhA/maxresdefault.jpg",
    });
    expect(post.videoVariants.map((v) => v.qualityLabel)).toEqual(["1080p", "720p", "480p", "360p", "240p", "144p"]);
    expect(post.videoVariants.map((v) => v.formatId)).not.toContain("sb0");
    expect(post.subtitles).toHaveLength(126);
    expect(post.subtitles[0]).toEqual({ lang: "af", name: "Afrikaans", auto: true });
  });

  test("Vimeo: progressive files win over HLS and DASH of the same height", () => {
    const post = infoToPost(ytdlpFixture("vimeo_443437002"), "VIMEO", page);
    expect(post).toMatchObject({
      id: "443437002",
      url: "https://vimeo.com/443437002",
      text: "Nike “You Can’t Stop Us”",
      authorName: "a52",
      durationSec: 90,
      posterUrl:
        "https://i.vimeocdn.com/video/934461428-d5f05644e5b9d3200b3dd08549375bd66b36981c35cefd3696c73b10fa263447-d_1280",
    });
    expect(post.videoVariants).toEqual([
      { qualityLabel: "1080p", formatId: "source", contentType: "video/mp4" },
      { qualityLabel: "720p", formatId: "http-720p", contentType: "video/mp4" },
      { qualityLabel: "540p", formatId: "http-540p", contentType: "video/mp4" },
      { qualityLabel: "360p", formatId: "http-360p", contentType: "video/mp4" },
      { qualityLabel: "240p", formatId: "http-240p", contentType: "video/mp4" },
    ]);
  });

  test("X (NASA): the post id, the full text instead of the shortened title", () => {
    const post = infoToPost(ytdlpFixture("twitter_nasa_1491475671058681863"), "X", page);
    expect(post).toMatchObject({
      id: "1491475671058681863",
      url: "https://x.com/i/status/1491475671058681863",
      authorName: "NASA",
      durationSec: 205,
      posterUrl: "https://pbs.twimg.com/media/FLKqq-UXoAARGh8.jpg?name=orig",
    });
    expect(post.text).toMatch(
      /^🎵 We’ve got it\.  On its way to touch the Sun, .* #VisionsOfVenus https:\/\/t\.co\/NuEfFRtO9J$/,
    );
    expect(post.videoVariants).toEqual([
      { qualityLabel: "720p", formatId: "http-2176", contentType: "video/mp4" },
      { qualityLabel: "360p", formatId: "http-832", contentType: "video/mp4" },
      { qualityLabel: "270p", formatId: "http-288", contentType: "video/mp4" },
    ]);
  });

  test("X (The Verge)", () => {
    const post = infoToPost(ytdlpFixture("twitter_verge_957383241714970624"), "X", page);
    expect(post).toMatchObject({
      id: "957383241714970624",
      url: "https://twitter.com/verge/status/957383241714970624",
      text: "Is it bad to blow into game cartridges? https://t.co/Y3yAimrUnP",
      authorName: "The Verge",
      durationSec: 147,
    });
    expect(post.videoVariants.map((v) => v.formatId)).toEqual(["http-1280", "http-832", "http-320"]);
  });
});

describe("infoToPost() on other shapes", () => {
  test("a generic page with no formats[] is one variant with format id 0", () => {
    const info = YtdlpInfo.parse({
      id: "clip",
      title: "A clip",
      url: "http://127.0.0.1:1/clip.mp4",
      ext: "mp4",
      protocol: "http",
      webpage_url: "http://127.0.0.1:1/page.html",
      thumbnail: null,
      thumbnails: [{ url: "http://127.0.0.1:1/small.jpg", width: 10, height: 10 }, {
        url: "http://127.0.0.1:1/big.jpg",
        width: 100,
        height: 100,
      }],
    });
    const post = infoToPost(info, "OTHER", page);
    expect(post).toEqual({
      platform: "OTHER",
      id: "clip",
      url: "http://127.0.0.1:1/page.html",
      text: "A clip",
      authorName: null,
      durationSec: null,
      posterUrl: "http://127.0.0.1:1/big.jpg",
      needsServerProcessing: true,
      videoVariants: [{ qualityLabel: "unknown", formatId: "0", contentType: "video/mp4" }],
      imageUrls: [],
      media: [{
        type: "video",
        url: null,
        posterUrl: "http://127.0.0.1:1/big.jpg",
        width: null,
        height: null,
        durationSec: null,
        videoVariants: [{ qualityLabel: "unknown", formatId: "0", contentType: "video/mp4" }],
        altText: null,
      }],
      subtitles: [],
      card: null,
    });
  });

  test("a playlist lists every entry as an item; the record's own fields stand for the first", () => {
    const info = YtdlpInfo.parse({
      _type: "playlist",
      id: "page",
      title: "Page",
      uploader: "Site",
      thumbnail: "http://a/page.jpg",
      entries: [
        {
          id: "first",
          title: "First",
          duration: 4.4,
          formats: [{ format_id: "hd", url: "http://a/1.mp4", ext: "mp4", width: 1280, height: 720 }],
        },
        {
          id: "photo",
          formats: [{
            format_id: "img",
            url: "http://a/2.jpg",
            ext: "jpg",
            vcodec: "none",
            acodec: "none",
            width: 1080,
            height: 1350,
          }],
        },
        null,
        {
          id: "third",
          title: "Third",
          thumbnail: "http://a/3.jpg",
          formats: [{ format_id: "sd", url: "http://a/3.mp4", ext: "mp4", height: 360 }],
        },
      ],
    });
    const post = infoToPost(info, "OTHER", page);
    expect(PostRecord.parse(post)).toEqual(post);
    expect(post).toMatchObject({
      id: "first",
      text: "First",
      authorName: "Site",
      url: "https://example.com/page",
      durationSec: 4,
    });
    expect(post.videoVariants).toEqual([{ qualityLabel: "720p", formatId: "hd", contentType: "video/mp4" }]);
    expect(post.imageUrls).toEqual(["http://a/2.jpg"]);
    expect(post.media).toEqual([
      {
        type: "video",
        url: null,
        posterUrl: "http://a/page.jpg",
        width: 1280,
        height: 720,
        durationSec: 4,
        videoVariants: post.videoVariants,
        altText: null,
      },
      {
        type: "photo",
        url: "http://a/2.jpg",
        posterUrl: null,
        width: 1080,
        height: 1350,
        durationSec: null,
        videoVariants: [],
        altText: null,
      },
      {
        type: "video",
        url: null,
        posterUrl: "http://a/3.jpg",
        width: null,
        height: 360,
        durationSec: null,
        videoVariants: [{ qualityLabel: "360p", formatId: "sd", contentType: "video/mp4" }],
        altText: null,
      },
    ]);
  });

  test("subtitles: every language with a track ffmpeg reads, manual ones and automatic captions apart", () => {
    const info = YtdlpInfo.parse({
      id: "v",
      formats: [{ format_id: "hd", url: "http://a/1.mp4", ext: "mp4", height: 720 }],
      subtitles: {
        en: [{ ext: "json3", url: "http://a/en.json3", name: "English" }, {
          ext: "vtt",
          url: "http://a/en.vtt",
          name: "English",
        }],
        de: [{ ext: "srt", url: "http://a/de.srt" }],
        live_chat: [{ ext: "json", url: "http://a/chat.json" }],
      },
      automatic_captions: {
        en: [{ ext: "ttml", url: "http://a/auto.ttml" }, {
          ext: "vtt",
          url: "http://a/auto.vtt",
          name: "English (auto)",
        }],
        fr: [{ ext: "srv3", url: "http://a/fr.srv3" }],
      },
    });
    expect(infoToPost(info, "OTHER", page).subtitles).toEqual([
      { lang: "en", name: "English", auto: false },
      { lang: "de", name: null, auto: false },
      { lang: "en", name: "English (auto)", auto: true },
    ]);
  });

  test("an image post lists its largest picture and no variants", () => {
    const info = YtdlpInfo.parse({
      id: "pin1",
      title: "Pin",
      formats: [
        { format_id: "236x", url: "https://i.example/236x/a.jpg", ext: "jpg", vcodec: "none", acodec: "none" },
        { format_id: "orig", url: "https://i.example/orig/a.jpg", ext: "jpg", vcodec: "none", acodec: "none" },
      ],
    });
    const post = infoToPost(info, "PINTEREST", page);
    expect(post.videoVariants).toEqual([]);
    expect(post.imageUrls).toEqual(["https://i.example/orig/a.jpg"]);
  });

  test("audio-only media (a SoundCloud track) lists every audio variant, the highest bitrate first", () => {
    // The formats yt-dlp's SoundCloud extractor lists for a track, as `yt-dlp -J` gives them.
    const info = YtdlpInfo.parse({
      id: "song",
      formats: [
        {
          format_id: "http_mp3_128",
          url: "http://a/a.mp3",
          ext: "mp3",
          protocol: "http",
          vcodec: "none",
          acodec: "mp3",
          tbr: 128,
        },
        {
          format_id: "hls_opus_64",
          url: "http://a/o.m3u8",
          ext: "opus",
          protocol: "m3u8_native",
          vcodec: "none",
          acodec: "opus",
          tbr: 64,
        },
        {
          format_id: "hls_aac_160",
          url: "http://a/a.m3u8",
          ext: "m4a",
          protocol: "m3u8_native",
          vcodec: "none",
          acodec: "mp4a.40.2",
          tbr: 160,
        },
      ],
    });
    expect(infoToPost(info, "SOUNDCLOUD", page).videoVariants).toEqual([
      { qualityLabel: "audio", formatId: "hls_aac_160", contentType: "audio/mp4" },
      { qualityLabel: "audio", formatId: "http_mp3_128", contentType: "audio/mpeg" },
      { qualityLabel: "audio", formatId: "hls_opus_64", contentType: "audio/ogg" },
    ]);
  });

  test.each([
    ["yt-dlp's {}", {}, "The platform showed this post with no video, image or text in it."],
    ["a title and no format", { id: "v1", title: "A page" }, "The platform showed this post"],
    [
      "storyboards only",
      {
        id: "v2",
        title: "T",
        formats: [{
          format_id: "sb0",
          url: "https://i.example/sb/M0.jpg",
          format_note: "storyboard",
          ext: "mhtml",
          vcodec: "none",
          acodec: "none",
          protocol: "mhtml",
        }],
      },
      "storyboards",
    ],
    [
      "DRM only",
      {
        id: "v3",
        title: "T",
        formats: [{
          format_id: "dash-1",
          url: "https://v.example/1.mpd",
          ext: "mp4",
          vcodec: "avc1",
          acodec: "mp4a",
          has_drm: true,
          height: 720,
        }],
      },
      "DRM",
    ],
  ])("%s is 404 no_media, never a video item no download can serve", (_, json, detail) => {
    const error = (() => {
      try {
        infoToPost(YtdlpInfo.parse(json), "OTHER", page);
      } catch (thrown) {
        return thrown as { code: string; message: string };
      }
    })();
    expect(error).toMatchObject({ code: "no_media", message: expect.stringContaining(detail) });
  });

  test("a generic 'Video by' title gives way to the description", () => {
    const info = YtdlpInfo.parse({ id: "C1", title: "Video by someone", description: "The caption #tag", ...aFile });
    expect(infoToPost(info, "INSTAGRAM", page).text).toBe("The caption #tag");
  });

  test("fields of an unexpected type read as null instead of failing", () => {
    const info = YtdlpInfo.parse({ id: 443437002, duration: "long", uploader: 5, title: "T", ...aFile });
    expect(infoToPost(info, "VIMEO", page)).toMatchObject({ id: "443437002", durationSec: null, authorName: null });
  });
});
