import { describe, expect, it } from "vitest";
import { TweetRecord } from "../../../src/platforms/records.ts";
import { syndicationAnswerToTweet } from "../../../src/platforms/x/syndication.ts";
import { apiErrorOf, readFixture } from "./read-fixture.ts";

const map = (file: string, id = "0") => syndicationAnswerToTweet(readFixture(`syndication/${file}`), id).record;

describe("syndicationAnswerToTweet()", () => {
  it("maps a video post: MP4 variants best first, size from the best variant's path, duration rounded", () => {
    const tweet = map("video_nasa_1491475671058681863.json");
    const variants = [
      {
        qualityLabel: "720p",
        url: "https://video.twimg.com/amplify_video/1491441845964001288/vid/1280x720/xvMDbP61zCKkXs19.mp4?tag=14",
        contentType: "video/mp4",
        bitrate: 2176000,
      },
      {
        qualityLabel: "360p",
        url: "https://video.twimg.com/amplify_video/1491441845964001288/vid/640x360/l2Yfccu1bExjcv6E.mp4?tag=14",
        contentType: "video/mp4",
        bitrate: 832000,
      },
      {
        qualityLabel: "270p",
        url: "https://video.twimg.com/amplify_video/1491441845964001288/vid/480x270/33HTmZZcDoJuSqOu.mp4?tag=14",
        contentType: "video/mp4",
        bitrate: 288000,
      },
    ];
    expect(tweet).toEqual({
      id: "1491475671058681863",
      text:
        "🎵 We’ve got it.\n\nOn its way to touch the Sun, our Parker Solar Probe took the 1st visible light images of Venus' surface from space! " +
        'Seeing the faint glow of plains & plateaus may give us clues on how "Earth\'s twin" became inhospitable: https://go.nasa.gov/3HGw3Pg\n\n#VisionsOfVenus',
      authorName: "NASA",
      authorScreenName: "NASA",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1321163587679784960/0ZxKlEKB_400x400.jpg",
      createdAt: "2022-02-09T18:14:44.000Z",
      durationSec: 205,
      posterUrl: "https://pbs.twimg.com/media/FLKqq-UXoAARGh8.jpg",
      // original_info says 720x405; the best variant really is 1280x720.
      width: 1280,
      height: 720,
      videoVariants: variants,
      imageUrls: [],
      isAnimatedGif: false,
      media: [
        {
          type: "video",
          url: variants[0]!.url,
          posterUrl: "https://pbs.twimg.com/media/FLKqq-UXoAARGh8.jpg",
          width: 1280,
          height: 720,
          durationSec: 205,
          videoVariants: variants,
        },
      ],
    });
    expect(TweetRecord.parse(tweet)).toEqual(tweet);
  });

  it("maps an animated GIF: one MP4 variant, no bitrate, no duration, size from original_info", () => {
    expect(map("animated_gif_746487912313688067.json")).toEqual({
      id: "746487912313688067",
      text: "Jesse Puljujärvi's reaction to Pierre-Luc Dubois being picked ahead of him",
      authorName: "CJ Fogler 🫡",
      authorScreenName: "cjzero",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1854034273696706562/VaWpmk1o_400x400.jpg",
      createdAt: "2016-06-24T23:39:22.000Z",
      durationSec: null,
      posterUrl: "https://pbs.twimg.com/tweet_video_thumb/ClwOxLQUgAAuYA9.jpg",
      width: 536,
      height: 300,
      videoVariants: [
        {
          qualityLabel: "300p",
          url: "https://video.twimg.com/tweet_video/ClwOxLQUgAAuYA9.mp4",
          contentType: "video/mp4",
          bitrate: null,
        },
      ],
      imageUrls: [],
      isAnimatedGif: true,
      media: [
        {
          type: "gif",
          url: "https://video.twimg.com/tweet_video/ClwOxLQUgAAuYA9.mp4",
          posterUrl: "https://pbs.twimg.com/tweet_video_thumb/ClwOxLQUgAAuYA9.jpg",
          width: 536,
          height: 300,
          durationSec: null,
          videoVariants: [{
            qualityLabel: "300p",
            url: "https://video.twimg.com/tweet_video/ClwOxLQUgAAuYA9.mp4",
            contentType: "video/mp4",
            bitrate: null,
          }],
        },
      ],
    });
  });

  it("maps a single-photo post whose text is only the media link", () => {
    expect(map("photo_single_2085077475109769243.json")).toEqual({
      id: "2085077475109769243",
      text: "",
      authorName: "I laughed",
      authorScreenName: "found_it_funny",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1874672025995993088/jOqTbgcV_400x400.jpg",
      createdAt: "2026-08-05T18:56:23.000Z",
      durationSec: null,
      posterUrl: null,
      width: null,
      height: null,
      videoVariants: [],
      imageUrls: ["https://pbs.twimg.com/media/HO-u6acXMAA1iE4.jpg?name=orig"],
      isAnimatedGif: false,
      media: [{
        type: "photo",
        url: "https://pbs.twimg.com/media/HO-u6acXMAA1iE4.jpg?name=orig",
        posterUrl: null,
        width: 1070,
        height: 1199,
        durationSec: null,
        videoVariants: [],
      }],
    });
  });

  it("drops the media link that old posts count as visible text", () => {
    expect(map("photo_single_obama_266031293945503744.json")).toEqual({
      id: "266031293945503744",
      text: "Four more years.",
      authorName: "Barack Obama",
      authorScreenName: "BarackObama",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1329647526807543809/2SGvnHYV_400x400.jpg",
      createdAt: "2012-11-07T04:16:18.000Z",
      durationSec: null,
      posterUrl: null,
      width: null,
      height: null,
      videoVariants: [],
      imageUrls: ["https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg?name=orig"],
      isAnimatedGif: false,
      media: [{
        type: "photo",
        url: "https://pbs.twimg.com/media/A7EiDWcCYAAZT1D.jpg?name=orig",
        posterUrl: null,
        width: 800,
        height: 532,
        durationSec: null,
        videoVariants: [],
      }],
    });
  });

  it("maps a text-only post with empty entities", () => {
    expect(map("text_only_jack_20_metascraper.json")).toEqual({
      id: "20",
      text: "just setting up my twttr",
      authorName: "jack",
      authorScreenName: "jack",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1661201415899951105/azNjKOSH_400x400.jpg",
      createdAt: "2006-03-21T20:50:14.000Z",
      durationSec: null,
      posterUrl: null,
      width: null,
      height: null,
      videoVariants: [],
      imageUrls: [],
      isAnimatedGif: false,
      media: [],
    });
  });

  it("uses the title of an X Article as the text, since the post text is only a link", () => {
    expect(map("article_2064997219648913457.json")).toEqual({
      id: "2064997219648913457",
      text: "My Instagram was dead for a year. One weekend changed that. 100K views, 500+ followers, 300+ users",
      authorName: "Eliana",
      authorScreenName: "eliana_jordan",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1966795855354060800/Nt--wKfR_400x400.jpg",
      createdAt: "2026-06-11T09:04:37.000Z",
      durationSec: null,
      posterUrl: null,
      width: null,
      height: null,
      videoVariants: [],
      imageUrls: [],
      isAnimatedGif: false,
      media: [],
    });
  });

  it("answers 404 post_unavailable with X's reason for tombstones", () => {
    const deleted = apiErrorOf(() => map("tombstone_deleted_by_author.json", "123"));
    expect([deleted.status, deleted.code]).toEqual([404, "post_unavailable"]);
    expect(deleted.message).toBe(
      "X does not show post 123: This Post was deleted by the Post author. Only public posts can be fetched.",
    );
    const suspended = apiErrorOf(() => map("tombstone_suspended.json", "456"));
    expect([suspended.status, suspended.code]).toEqual([404, "post_unavailable"]);
    expect(suspended.message).toBe(
      "X does not show post 456: This Post is from a suspended account. Only public posts can be fetched.",
    );
  });

  it("answers 404 not_found for an empty answer", () => {
    const error = apiErrorOf(() => syndicationAnswerToTweet({}, "789"));
    expect([error.status, error.code, error.message]).toEqual([
      404,
      "not_found",
      "X has no post with id 789; check the link.",
    ]);
  });

  it.each([
    ["a string", "hello"],
    ["null", null],
    ["a tweet without text", { __typename: "Tweet", id_str: "1", user: {} }],
    ["a numeric id", { __typename: "Tweet", id_str: 1, text: "", user: {} }],
    ["an unknown typename", { __typename: "TweetUnknown" }],
    ["an unknown object", { error: "rate limited" }],
    ["a video variant without url", {
      __typename: "Tweet",
      id_str: "1",
      text: "",
      user: {},
      mediaDetails: [{
        type: "video",
        media_url_https: "https://pbs.twimg.com/x.jpg",
        video_info: { variants: [{ content_type: "video/mp4" }] },
      }],
    }],
  ])("answers 502 upstream_failed for %s", (_name, body) => {
    const error = apiErrorOf(() => syndicationAnswerToTweet(body, "1"));
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
  });
});
