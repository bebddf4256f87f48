import { describe, expect, it } from "vitest";
import { PostRecord } from "../../../src/platforms/records.ts";
import { tweetToPost, ytdlpFormatId } from "../../../src/platforms/x/post.ts";
import { syndicationAnswerToTweet } from "../../../src/platforms/x/syndication.ts";
import { readFixture } from "./read-fixture.ts";

const tweetOf = (file: string) => syndicationAnswerToTweet(readFixture(`syndication/${file}`), "0").record;

interface YtdlpInfo {
  formats: Array<{ format_id: string; url: string }>;
}

describe("tweetToPost()", () => {
  it("maps a video post, with format ids that yt-dlp gives the same MP4 files", () => {
    const post = tweetToPost(tweetOf("video_nasa_1491475671058681863.json"));
    const variants = [
      { qualityLabel: "720p", formatId: "http-2176", contentType: "video/mp4" },
      { qualityLabel: "360p", formatId: "http-832", contentType: "video/mp4" },
      { qualityLabel: "270p", formatId: "http-288", contentType: "video/mp4" },
    ];
    expect(post).toEqual({
      platform: "X",
      id: "1491475671058681863",
      url: "https://x.com/NASA/status/1491475671058681863",
      text: expect.stringMatching(/^🎵 We’ve got it\./),
      authorName: "NASA",
      durationSec: 205,
      posterUrl: "https://pbs.twimg.com/media/FLKqq-UXoAARGh8.jpg",
      needsServerProcessing: false,
      videoVariants: variants,
      imageUrls: [],
      media: [
        {
          type: "video",
          url: "https://video.twimg.com/amplify_video/1491441845964001288/vid/1280x720/xvMDbP61zCKkXs19.mp4?tag=14",
          posterUrl: "https://pbs.twimg.com/media/FLKqq-UXoAARGh8.jpg",
          width: 1280,
          height: 720,
          durationSec: 205,
          videoVariants: variants,
          altText: null,
        },
      ],
      subtitles: [],
      card: null,
    });
    expect(PostRecord.parse(post)).toEqual(post);

    // yt-dlp -J of the same post names each MP4 URL with the id we give it.
    const tweet = tweetOf("video_nasa_1491475671058681863.json");
    const ytdlp = readFixture("ytdlp/twitter_nasa_1491475671058681863.info.json") as YtdlpInfo;
    for (const [i, variant] of tweet.videoVariants.entries()) {
      expect(ytdlp.formats.find((f) => f.url === variant.url)?.format_id).toBe(post.videoVariants[i]!.formatId);
    }
  });

  it("names the GIF variant `http`, as yt-dlp does for a variant without bitrate", () => {
    const post = tweetToPost(tweetOf("animated_gif_746487912313688067.json"));
    expect(post.videoVariants).toEqual([{ qualityLabel: "300p", formatId: "http", contentType: "video/mp4" }]);
    expect([post.needsServerProcessing, post.durationSec, post.url]).toEqual([
      false,
      null,
      "https://x.com/cjzero/status/746487912313688067",
    ]);
  });

  it("maps a photo post: images, no variants, nothing to process", () => {
    expect(tweetToPost(tweetOf("photo_single_obama_266031293945503744.json"))).toEqual({
      platform: "X",
      id: "266031293945503744",
      url: "https://x.com/BarackObama/status/266031293945503744",
      text: "Four more years.",
      authorName: "Barack Obama",
      durationSec: null,
      posterUrl: null,
      needsServerProcessing: false,
      videoVariants: [],
      imageUrls: ["https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg?name=orig"],
      media: [{
        type: "photo",
        url: "https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg?name=orig",
        posterUrl: null,
        width: 800,
        height: 532,
        durationSec: null,
        videoVariants: [],
        altText: null,
      }],
      subtitles: [],
      card: null,
    });
  });

  it("sends an HLS-only video to page mode and links unknown authors through /i/", () => {
    const tweet = { ...tweetOf("video_nasa_1491475671058681863.json"), videoVariants: [], authorScreenName: null };
    const post = tweetToPost(tweet);
    expect([post.needsServerProcessing, post.url]).toEqual([true, "https://x.com/i/status/1491475671058681863"]);
  });
});

describe("ytdlpFormatId()", () => {
  it("matches every progressive format id in the recorded yt-dlp answers", () => {
    expect(ytdlpFormatId(2176000)).toBe("http-2176");
    expect(ytdlpFormatId(1280000)).toBe("http-1280");
    expect(ytdlpFormatId(288999)).toBe("http-288");
    expect(ytdlpFormatId(null)).toBe("http");
  });
});
