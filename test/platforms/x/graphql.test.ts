import { describe, expect, it } from "vitest";
import {
  graphqlAnswerToTweet,
  GraphqlTweet,
  graphqlTweetToRecord,
  parseLegacyDate,
} from "../../../src/platforms/x/graphql.ts";
import { apiErrorOf, readFixture } from "./read-fixture.ts";

const map = (file: string) => graphqlAnswerToTweet(readFixture(`graphql/${file}`), "0").record;

interface Conversation {
  data: {
    threaded_conversation_with_injections_v2: {
      instructions: Array<
        {
          entries?: Array<
            { content: { itemContent?: TweetItem; items?: Array<{ item: { itemContent: TweetItem } }> } }
          >;
        }
      >;
    };
  };
}
type TweetItem = { tweet_results?: { result?: { rest_id?: string } } };

// A TweetDetail conversation holds the same tweet objects as TweetResultByRestId, in entries
// (the focal post) and in the items of thread modules (the replies).
function tweetFromConversation(file: string, id: string): GraphqlTweet {
  const answer = readFixture(`graphql/${file}`) as Conversation;
  const items = answer.data.threaded_conversation_with_injections_v2.instructions
    .flatMap((instruction) => instruction.entries ?? [])
    .flatMap((entry) => [entry.content.itemContent, ...(entry.content.items ?? []).map((i) => i.item.itemContent)]);
  return GraphqlTweet.parse(items.find((item) => item?.tweet_results?.result?.rest_id === id)?.tweet_results?.result);
}

const noVideo = {
  durationSec: null,
  posterUrl: null,
  width: null,
  height: null,
  videoVariants: [],
  isAnimatedGif: false,
};
const noMedia = { ...noVideo, media: [] };
const photo = (url: string, width: number, height: number) => ({
  type: "photo",
  url,
  posterUrl: null,
  width,
  height,
  durationSec: null,
  videoVariants: [],
});

describe("graphqlAnswerToTweet()", () => {
  it("maps a video post, taking the size from the best variant rather than original_info", () => {
    expect(map("TweetResultByRestId_video_1841206275088290279.json")).toEqual({
      id: "1841206275088290279",
      text:
        "Sulphur-crested Cockatoo enjoying the warm Brisbane breeze...   \n@fred_od_photo #birds #birdwatching #birding #WildOz #birdphotography #birdsofaustralia #cockatoo",
      authorName: "Tranquility Found",
      authorScreenName: "DivineDropbear",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1871316427581583360/AY58qda4_400x400.jpg",
      createdAt: "2024-10-01T19:59:18.000Z",
      durationSec: 30,
      posterUrl: "https://pbs.twimg.com/ext_tw_video_thumb/1841204388993646595/pu/img/KKN8tSQm60z2FmtE.jpg",
      width: 1280,
      height: 720,
      videoVariants: [
        {
          qualityLabel: "720p",
          url:
            "https://video.twimg.com/ext_tw_video/1841204388993646595/pu/vid/avc1/1280x720/NRpzIavCR5W-jWFh.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 2176000,
        },
        {
          qualityLabel: "360p",
          url:
            "https://video.twimg.com/ext_tw_video/1841204388993646595/pu/vid/avc1/640x360/gap6eNvJGCbYTOWH.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 832000,
        },
        {
          qualityLabel: "270p",
          url:
            "https://video.twimg.com/ext_tw_video/1841204388993646595/pu/vid/avc1/480x270/vxKqarkYhJW80NBu.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 256000,
        },
      ],
      imageUrls: [],
      isAnimatedGif: false,
      media: [
        expect.objectContaining({
          type: "video",
          url:
            "https://video.twimg.com/ext_tw_video/1841204388993646595/pu/vid/avc1/1280x720/NRpzIavCR5W-jWFh.mp4?tag=12",
          width: 1280,
          height: 720,
          durationSec: 30,
        }),
      ],
    });
  });

  it("maps three photos, in order, at full size", () => {
    expect(map("TweetResultByRestId_3photos_1848831595014459513.json")).toEqual({
      id: "1848831595014459513",
      text:
        "Flight 6 Super Heavy booster moved to the Starbase pad for testing. The move comes just one week after returning the first booster caught following launch",
      authorName: "SpaceX",
      authorScreenName: "SpaceX",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1697749409851985920/HbrI04tM_400x400.jpg",
      createdAt: "2024-10-22T20:59:36.000Z",
      ...noVideo,
      imageUrls: [
        "https://pbs.twimg.com/media/GahebgHbEAEevTU.jpg?name=orig",
        "https://pbs.twimg.com/media/GahecZ5aAAEX7GX.jpg?name=orig",
        "https://pbs.twimg.com/media/GaheddqbsAAzGXg.jpg?name=orig",
      ],
      media: [
        photo("https://pbs.twimg.com/media/GahebgHbEAEevTU.jpg?name=orig", 4096, 2304),
        photo("https://pbs.twimg.com/media/GahecZ5aAAEX7GX.jpg?name=orig", 2529, 3793),
        photo("https://pbs.twimg.com/media/GaheddqbsAAzGXg.jpg?name=orig", 4004, 2252),
      ],
    });
  });

  it("maps a quote post with its own portrait video, not the quoted post", () => {
    expect(map("TweetResultByRestId_quote_video_1902059299591090335.json")).toEqual({
      id: "1902059299591090335",
      text: "",
      authorName: "harlow",
      authorScreenName: "carrionkid",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1246997941409189888/rZzhMxv7_400x400.jpg",
      createdAt: "2025-03-18T18:07:30.000Z",
      durationSec: 16,
      posterUrl: "https://pbs.twimg.com/ext_tw_video_thumb/1902059279190052864/pu/img/DLoQFXU9gzkHQ2fh.jpg",
      width: 576,
      height: 1280,
      videoVariants: [
        {
          qualityLabel: "1280p",
          url:
            "https://video.twimg.com/ext_tw_video/1902059279190052864/pu/vid/avc1/576x1280/yhSQqEJfEU8wapy2.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 2176000,
        },
        {
          qualityLabel: "1066p",
          url:
            "https://video.twimg.com/ext_tw_video/1902059279190052864/pu/vid/avc1/480x1066/U_pJyFAzyajaxcz8.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 950000,
        },
        {
          qualityLabel: "710p",
          url:
            "https://video.twimg.com/ext_tw_video/1902059279190052864/pu/vid/avc1/320x710/g78J75WLanKsTSiJ.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 632000,
        },
      ],
      imageUrls: [],
      isAnimatedGif: false,
      media: [
        expect.objectContaining({
          type: "video",
          url:
            "https://video.twimg.com/ext_tw_video/1902059279190052864/pu/vid/avc1/576x1280/yhSQqEJfEU8wapy2.mp4?tag=12",
          width: 576,
          height: 1280,
          durationSec: 16,
        }),
      ],
    });
  });

  it("maps a text-only post", () => {
    expect(map("TweetResultByRestId_text_20.json")).toEqual({
      id: "20",
      text: "just setting up my twttr",
      authorName: "jack",
      authorScreenName: "jack",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1661201415899951105/azNjKOSH_400x400.jpg",
      createdAt: "2006-03-21T20:50:14.000Z",
      ...noMedia,
      imageUrls: [],
    });
  });

  it("maps a post with a poll card as text only", () => {
    expect(map("TweetResultByRestId_card_1899954694652309701.json")).toEqual({
      id: "1899954694652309701",
      text:
        'You can only pick ONE ship for the rest of your time in Star Citizen. What are you choosing?" 🚀💭\n#starcitizen #poll #videogames #spacegames',
      authorName: "Vyseroy 🚀",
      authorScreenName: "Vyseroy",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1761375988833832960/BEcUkWTM_400x400.jpg",
      createdAt: "2025-03-12T22:44:33.000Z",
      ...noMedia,
      imageUrls: [],
    });
  });

  it("reads name, handle and avatar from the 2025 user schema (core + avatar)", () => {
    expect(map("TweetResultByRestId_community_newcore_1964084223871971826.json")).toEqual({
      id: "1964084223871971826",
      text: "",
      authorName: "Volt",
      authorScreenName: "vo1twasdowned",
      authorAvatarUrl: "https://pbs.twimg.com/profile_images/1962209901574320129/OkBXZF_p_400x400.jpg",
      createdAt: "2025-09-05T21:52:24.000Z",
      ...noVideo,
      imageUrls: ["https://pbs.twimg.com/media/G0HULMeWMAA-IGM.png?name=orig"],
      media: [photo("https://pbs.twimg.com/media/G0HULMeWMAA-IGM.png?name=orig", 736, 515)],
    });
  });

  it("unwraps TweetWithVisibilityResults", () => {
    const answer = readFixture("graphql/TweetResultByRestId_text_20.json") as {
      data: { tweetResult: { result: unknown } };
    };
    const wrapped = {
      data: {
        tweetResult: { result: { __typename: "TweetWithVisibilityResults", tweet: answer.data.tweetResult.result } },
      },
    };
    expect(graphqlAnswerToTweet(wrapped, "20").record.text).toBe("just setting up my twttr");
  });

  it("answers 404 not_found for an empty tweetResult", () => {
    const error = apiErrorOf(() => graphqlAnswerToTweet({ data: { tweetResult: {} } }, "5"));
    expect([error.status, error.code]).toEqual([404, "not_found"]);
  });

  it("answers 404 post_unavailable for TweetUnavailable and TweetTombstone", () => {
    const protectedPost = apiErrorOf(() =>
      graphqlAnswerToTweet({
        data: { tweetResult: { result: { __typename: "TweetUnavailable", reason: "Protected" } } },
      }, "5")
    );
    expect([protectedPost.status, protectedPost.code, protectedPost.message]).toEqual([
      404,
      "post_unavailable",
      "X does not show post 5: Protected. Only public posts can be fetched.",
    ]);
    const tombstone = apiErrorOf(() =>
      graphqlAnswerToTweet(
        {
          data: {
            tweetResult: {
              result: {
                __typename: "TweetTombstone",
                tombstone: { text: { text: "This Post was deleted by the Post author. Learn more" } },
              },
            },
          },
        },
        "6",
      )
    );
    expect([tombstone.status, tombstone.code]).toEqual([404, "post_unavailable"]);
    expect(tombstone.message).toContain("deleted by the Post author");
  });

  it.each([
    ["an errors-only answer", { errors: [{ message: "Rate limit exceeded", code: 88 }] }],
    ["a tweet without legacy", {
      data: { tweetResult: { result: { __typename: "Tweet", rest_id: "1", core: { user_results: { result: {} } } } } },
    }],
    ["a TweetDetail answer", readFixture("graphql/TweetDetail_video_1841206275088290279.json")],
  ])("answers 502 upstream_failed for %s", (_name, body) => {
    const error = apiErrorOf(() => graphqlAnswerToTweet(body, "1"));
    expect([error.status, error.code]).toEqual([502, "upstream_failed"]);
  });
});

describe("graphqlTweetToRecord() on TweetDetail conversations", () => {
  const figen = {
    authorName: "Figen",
    authorScreenName: "TheFigen_",
    authorAvatarUrl: "https://pbs.twimg.com/profile_images/1645880810958929921/8mi_I17M_400x400.jpg",
  };

  it("maps the focal post of a 2023 conversation (older user schema, media link inside the text range)", () => {
    const file = "TweetDetail_twscrape_video_1671508600538161153.json";
    expect(graphqlTweetToRecord(tweetFromConversation(file, "1671508600538161153"))).toEqual({
      id: "1671508600538161153",
      text: "This is not science fiction.\nNightscape in Nanjing, China",
      ...figen,
      createdAt: "2023-06-21T13:21:20.000Z",
      durationSec: 5,
      posterUrl: "https://pbs.twimg.com/ext_tw_video_thumb/1668857866328100864/pu/img/nvEZWP1Yu9-6C23H.jpg",
      width: 720,
      height: 1280,
      videoVariants: [
        {
          qualityLabel: "1280p",
          url: "https://video.twimg.com/ext_tw_video/1668857866328100864/pu/vid/720x1280/ENfeGwtfyiYvpNy8.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 2176000,
        },
        {
          qualityLabel: "852p",
          url: "https://video.twimg.com/ext_tw_video/1668857866328100864/pu/vid/480x852/Doxgvs4FudRgrvhF.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 950000,
        },
        {
          qualityLabel: "568p",
          url: "https://video.twimg.com/ext_tw_video/1668857866328100864/pu/vid/320x568/pY6q1h6ISkvyHc0F.mp4?tag=12",
          contentType: "video/mp4",
          bitrate: 632000,
        },
      ],
      imageUrls: [],
      isAnimatedGif: false,
      media: [
        expect.objectContaining({
          type: "video",
          url: "https://video.twimg.com/ext_tw_video/1668857866328100864/pu/vid/720x1280/ENfeGwtfyiYvpNy8.mp4?tag=12",
          width: 720,
          height: 1280,
          durationSec: 5,
        }),
      ],
    });
  });

  it("maps a reply: the leading @mentions are cut from the text", () => {
    const file = "TweetDetail_twscrape_video_1671508600538161153.json";
    expect(graphqlTweetToRecord(tweetFromConversation(file, "1671510449605558272"))).toEqual({
      id: "1671510449605558272",
      text: "Agree.",
      ...figen,
      createdAt: "2023-06-21T13:28:41.000Z",
      ...noMedia,
      imageUrls: [],
    });
  });

  it("maps the post of a TweetDetail answer like the same post's TweetResultByRestId answer", () => {
    const fromDetail = graphqlTweetToRecord(
      tweetFromConversation("TweetDetail_video_1841206275088290279.json", "1841206275088290279"),
    );
    expect(fromDetail).toEqual(map("TweetResultByRestId_video_1841206275088290279.json"));
  });
});

describe("parseLegacyDate()", () => {
  it("reads X's legacy date form, offsets included", () => {
    expect(parseLegacyDate("Tue Oct 01 19:59:18 +0000 2024")?.toISOString()).toBe("2024-10-01T19:59:18.000Z");
    expect(parseLegacyDate("Wed Oct 05 18:40:30 +0200 2022")?.toISOString()).toBe("2022-10-05T16:40:30.000Z");
    expect(parseLegacyDate("Wed Oct 05 18:40:30 -0130 2022")?.toISOString()).toBe("2022-10-05T20:10:30.000Z");
  });

  it("gives null for other forms", () => {
    expect(parseLegacyDate("2024-10-01T19:59:18.000Z")).toBeNull();
    expect(parseLegacyDate("Tue Foo 01 19:59:18 +0000 2024")).toBeNull();
  });
});
