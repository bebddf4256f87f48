import { describe, expect, it } from "vitest";
import {
  dimensionsFromUrl,
  fullSizeImageUrl,
  type Media,
  partsToTweetRecord,
  type TweetParts,
  visibleText,
} from "../../../src/platforms/x/tweet-parts.ts";

const base: TweetParts = {
  id: "1",
  rawText: "",
  displayTextRange: null,
  urls: [],
  mediaLinks: [],
  createdAt: null,
  authorName: null,
  authorScreenName: null,
  authorAvatarUrl: null,
  media: [],
  articleTitle: null,
};

const video = (variants: Array<{ bitrate?: number; content_type: string; url: string }>): Media => ({
  type: "video",
  media_url_https: "https://pbs.twimg.com/ext_tw_video_thumb/9/pu/img/p.jpg",
  original_info: { width: 640, height: 360 },
  video_info: { duration_millis: 1499, variants },
});

describe("visibleText()", () => {
  it("cuts to the display range in code points, expands links, drops media links, unescapes", () => {
    const rawText = "@bob 🎵 a &lt;b&gt; &amp; https://t.co/link https://t.co/pic";
    expect(
      visibleText({
        rawText,
        displayTextRange: [5, 59], // from after "@bob " to the end, as posts before 2016 count it
        urls: [{ url: "https://t.co/link", expanded_url: "https://example.com/page" }],
        mediaLinks: ["https://t.co/pic"],
      }),
    ).toBe("🎵 a <b> & https://example.com/page");
  });

  it("keeps the whole text when there is no range", () => {
    expect(visibleText({ rawText: "a &amp;amp; b", displayTextRange: null, urls: [], mediaLinks: [] })).toBe(
      "a &amp; b",
    );
  });
});

describe("dimensionsFromUrl()", () => {
  it("reads WxH from both variant path forms", () => {
    expect(dimensionsFromUrl("https://video.twimg.com/amplify_video/1/vid/1280x720/x.mp4?tag=14")).toEqual({
      width: 1280,
      height: 720,
    });
    expect(dimensionsFromUrl("https://video.twimg.com/ext_tw_video/1/pu/vid/avc1/576x1280/y.mp4")).toEqual({
      width: 576,
      height: 1280,
    });
    expect(dimensionsFromUrl("https://video.twimg.com/tweet_video/ClwOxLQUgAAuYA9.mp4")).toBeNull();
  });
});

describe("fullSizeImageUrl()", () => {
  it("asks pbs.twimg.com for the original, replacing any size already asked for", () => {
    expect(fullSizeImageUrl("https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg")).toBe(
      "https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg?name=orig",
    );
    expect(fullSizeImageUrl("https://pbs.twimg.com/media/A.jpg?format=jpg&name=small")).toBe(
      "https://pbs.twimg.com/media/A.jpg?format=jpg&name=orig",
    );
  });
});

describe("partsToTweetRecord()", () => {
  it("labels variants without a size in their path by bitrate, and sorts them best first", () => {
    const tweet = partsToTweetRecord({
      ...base,
      media: [
        video([
          { bitrate: 832000, content_type: "video/mp4", url: "https://video.twimg.com/a.mp4" },
          { bitrate: 2176500, content_type: "video/mp4", url: "https://video.twimg.com/b.mp4" },
        ]),
      ],
    });
    expect(tweet.videoVariants.map((v) => [v.qualityLabel, v.bitrate])).toEqual([
      ["2176kbps", 2176500],
      ["832kbps", 832000],
    ]);
    expect([tweet.width, tweet.height, tweet.durationSec]).toEqual([640, 360, 1]);
  });

  it("labels a lone variant of unknown size and bitrate `mp4` when original_info is missing too", () => {
    const gif: Media = {
      type: "animated_gif",
      media_url_https: "https://pbs.twimg.com/tweet_video_thumb/g.jpg",
      video_info: {
        variants: [{ bitrate: 0, content_type: "video/mp4", url: "https://video.twimg.com/tweet_video/g.mp4" }],
      },
    };
    const tweet = partsToTweetRecord({ ...base, media: [gif] });
    expect(tweet.videoVariants).toEqual([{
      qualityLabel: "mp4",
      url: "https://video.twimg.com/tweet_video/g.mp4",
      contentType: "video/mp4",
      bitrate: null,
    }]);
    expect([tweet.isAnimatedGif, tweet.width, tweet.height, tweet.durationSec]).toEqual([true, null, null, null]);
  });

  it("gives a video offered only as HLS a poster and no variants", () => {
    const tweet = partsToTweetRecord({
      ...base,
      media: [video([{ content_type: "application/x-mpegURL", url: "https://video.twimg.com/pl/x.m3u8" }])],
    });
    expect([tweet.videoVariants, tweet.posterUrl]).toEqual([
      [],
      "https://pbs.twimg.com/ext_tw_video_thumb/9/pu/img/p.jpg",
    ]);
  });

  it("keeps photos beside a video as images, and an invalid date as null", () => {
    const photo: Media = { type: "photo", media_url_https: "https://pbs.twimg.com/media/P.png" };
    const tweet = partsToTweetRecord({ ...base, createdAt: new Date("nonsense"), media: [photo, video([])] });
    expect([tweet.imageUrls, tweet.createdAt]).toEqual([["https://pbs.twimg.com/media/P.png?name=orig"], null]);
  });

  it("lists every photo, video and GIF in X's order as `media`, the video fields describing the first video", () => {
    const photo = (name: string): Media => ({
      type: "photo",
      media_url_https: `https://pbs.twimg.com/media/${name}.jpg`,
      original_info: { width: 800, height: 600 },
    });
    const gif: Media = {
      type: "animated_gif",
      media_url_https: "https://pbs.twimg.com/tweet_video_thumb/G.jpg",
      video_info: {
        variants: [{ bitrate: 0, content_type: "video/mp4", url: "https://video.twimg.com/tweet_video/G.mp4" }],
      },
    };
    const hlsOnly = video([{ content_type: "application/x-mpegURL", url: "https://video.twimg.com/pl/x.m3u8" }]);
    const mp4 = "https://video.twimg.com/ext_tw_video/9/pu/vid/avc1/1280x720/v.mp4";
    const model: Media = { type: "model", media_url_https: "https://pbs.twimg.com/media/M.glb" };
    const tweet = partsToTweetRecord({
      ...base,
      media: [
        photo("A"),
        video([{ bitrate: 2176000, content_type: "video/mp4", url: mp4 }]),
        photo("B"),
        gif,
        hlsOnly,
        model,
      ],
    });
    expect(tweet.media.map((item) => [item.type, item.url])).toEqual([
      ["photo", "https://pbs.twimg.com/media/A.jpg?name=orig"],
      ["video", mp4],
      ["photo", "https://pbs.twimg.com/media/B.jpg?name=orig"],
      ["gif", "https://video.twimg.com/tweet_video/G.mp4"],
      // No MP4 file: only page mode has it.
      ["video", null],
    ]);
    expect(tweet.media[0]).toEqual({
      type: "photo",
      url: "https://pbs.twimg.com/media/A.jpg?name=orig",
      posterUrl: null,
      width: 800,
      height: 600,
      durationSec: null,
      videoVariants: [],
    });
    expect(tweet.media[1]).toMatchObject({
      posterUrl: "https://pbs.twimg.com/ext_tw_video_thumb/9/pu/img/p.jpg",
      width: 1280,
      height: 720,
      durationSec: 1,
    });
    expect([tweet.videoVariants[0]?.url, tweet.width, tweet.durationSec, tweet.isAnimatedGif]).toEqual([
      mp4,
      1280,
      1,
      false,
    ]);
    expect(tweet.imageUrls).toEqual([
      "https://pbs.twimg.com/media/A.jpg?name=orig",
      "https://pbs.twimg.com/media/B.jpg?name=orig",
    ]);
  });

  it("leaves avatars that are not `_normal` files as they are", () => {
    const tweet = partsToTweetRecord({
      ...base,
      authorAvatarUrl: "https://abs.twimg.com/sticky/default_profile_images/default_profile.png",
    });
    expect(tweet.authorAvatarUrl).toBe("https://abs.twimg.com/sticky/default_profile_images/default_profile.png");
  });
});
