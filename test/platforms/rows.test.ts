// Every row of the platform table, offline: its sample links (the shapes people paste, most from
// yt-dlp's and gallery-dl's own extractor tests) belong to it, go to the reader it names, and are
// claimed by that tool's own extractor, as the installed yt-dlp and gallery-dl say (no network).
import { afterAll, describe, expect, test } from "vitest";
import { isPhotoShaped } from "../../src/platforms/post-source.ts";
import type { ListedPlatformId } from "../../src/platforms/records.ts";
import { installedToolClaims } from "../helpers/claims.ts";
import { canonicalLink, detectPlatform, platformTable } from "../../src/platforms/table.ts";
import { postOf } from "../../src/platforms/threads/url.ts";

/** The tool whose extractor claims a link; `threads` for the one platform no tool reads, whose own reader claims it. */
type Tool = "yt-dlp" | "gallery-dl" | "threads";
/** Samples on a row's mirrors: each read as the same link on the platform's canonical host. */
const mirrored = (urls: string[], tool: Tool, extractor: string) =>
  urls.map((url) => [url, tool, extractor] as [string, Tool, string]);

/** Per platform: sample links and the tool that reads each first, with the extractor of it that must claim the link. */
const samples: Record<Exclude<ListedPlatformId, "OTHER">, [url: string, tool: Tool, extractor: string][]> = {
  X: [
    ["https://x.com/jack/status/20", "yt-dlp", "Twitter"],
    [
      "https://twitter.com/i/web/status/20",
      "yt-dlp",
      "Twitter",
    ],
    ["https://mobile.twitter.com/jack/status/20/photo/1", "yt-dlp", "Twitter"],
    ...mirrored(
      [
        "https://fxtwitter.com/jack/status/20",
        "https://d.fxtwitter.com/jack/status/20",
        "https://fixupx.com/jack/status/20",
        "https://vxtwitter.com/jack/status/20",
        "https://fixvx.com/jack/status/20",
        "https://twittpr.com/jack/status/20",
      ],
      "yt-dlp",
      "Twitter",
    ),
  ],
  INSTAGRAM: [
    ["https://www.instagram.com/p/aye83DjauH/", "gallery-dl", "instagram"],
    [
      "https://www.instagram.com/reel/Chunk8-jurw/",
      "yt-dlp",
      "Instagram",
    ],
    ...mirrored(
      [
        "https://www.ddinstagram.com/reel/Chunk8-jurw/",
        "https://kkinstagram.com/reel/Chunk8-jurw/",
        "https://vxinstagram.com/reel/Chunk8-jurw/",
        "https://instagramez.com/reel/Chunk8-jurw/",
        "https://instagr.am/reel/Chunk8-jurw/",
      ],
      "yt-dlp",
      "Instagram",
    ),
  ],
  YOUTUBE: [
    ["https://www.youtube.com/watch?v=jNQXAC9IVRw", "yt-dlp", "Youtube"],
    [
      "https://youtu.be/jNQXAC9IVRw",
      "yt-dlp",
      "Youtube",
    ],
    ["https://www.youtube.com/shorts/BGQWPY4IigY", "yt-dlp", "Youtube"],
    [
      "https://www.youtubekids.com/watch?v=jNQXAC9IVRw",
      "yt-dlp",
      "Youtube",
    ],
    ["https://music.youtube.com/watch?v=jNQXAC9IVRw", "yt-dlp", "Youtube"],
    [
      "https://m.youtube.com/watch?v=jNQXAC9IVRw",
      "yt-dlp",
      "Youtube",
    ],
    ["https://www.youtube-nocookie.com/embed/jNQXAC9IVRw", "yt-dlp", "Youtube"],
    [
      "https://www.youtube.com/live/jNQXAC9IVRw",
      "yt-dlp",
      "Youtube",
    ],
  ],
  TIKTOK: [
    ["https://www.tiktok.com/@leenabhushan/video/6748451240264420610", "yt-dlp", "TikTok"],
    [
      "https://www.tiktok.com/@user/photo/7296335380254706949",
      "gallery-dl",
      "tiktok",
    ],
    ...mirrored(
      [
        "https://www.tnktok.com/@leenabhushan/video/6748451240264420610",
        "https://vxtiktok.com/@leenabhushan/video/6748451240264420610",
        "https://tiktxk.com/@leenabhushan/video/6748451240264420610",
        "https://tfxktok.com/@leenabhushan/video/6748451240264420610",
      ],
      "yt-dlp",
      "TikTok",
    ),
  ],
  REDDIT: [["https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/", "yt-dlp", "Reddit"], [
    "https://www.reddit.com/gallery/hrrh23",
    "gallery-dl",
    "reddit",
  ], ["https://old.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/", "yt-dlp", "Reddit"]],
  FACEBOOK: [["https://www.facebook.com/radiokicksfm/videos/3676516585958356/", "yt-dlp", "Facebook"], [
    "https://www.facebook.com/photo/?fbid=10160523227373829",
    "gallery-dl",
    "facebook",
  ], ["https://m.facebook.com/radiokicksfm/videos/3676516585958356/", "yt-dlp", "Facebook"]],
  PINTEREST: [["https://www.pinterest.com/pin/664281013778109217/", "yt-dlp", "Pinterest"], [
    "https://de.pinterest.com/pin/664281013778109217/",
    "yt-dlp",
    "Pinterest",
  ]],
  AMAZON: [["https://www.amazon.co.uk/dp/B098XNCHLD/", "yt-dlp", "AmazonStore"], [
    "https://www.amazon.de/dp/B0BYLRNHK6",
    "yt-dlp",
    "AmazonStore",
  ]],
  VIMEO: [["https://vimeo.com/76979871", "yt-dlp", "Vimeo"], [
    "https://player.vimeo.com/video/76979871",
    "yt-dlp",
    "Vimeo",
  ], ["https://m.vimeo.com/76979871", "yt-dlp", "Vimeo"]],
  DAILYMOTION: [
    ["https://www.dailymotion.com/video/x2iuewm", "yt-dlp", "Dailymotion"],
    [
      "https://dai.ly/x2iuewm",
      "yt-dlp",
      "Dailymotion",
    ],
    ["https://www.dailymotion.com/embed/video/x2iuewm", "yt-dlp", "Dailymotion"],
    [
      "https://geo.dailymotion.com/player.html?video=x2iuewm",
      "yt-dlp",
      "Dailymotion",
    ],
  ],
  BLUESKY: [
    ["https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g", "yt-dlp", "Bluesky"],
    [
      "https://bsky.app/profile/did:plc:z72i7hdynmk6r22z27h6tvur/post/3l3vgf77uco2g",
      "yt-dlp",
      "Bluesky",
    ],
    ...mirrored(
      [
        "https://bskx.app/profile/bsky.app/post/3l3vgf77uco2g",
        "https://fxbsky.app/profile/bsky.app/post/3l3vgf77uco2g",
        "https://bskyx.app/profile/bsky.app/post/3l3vgf77uco2g",
      ],
      "yt-dlp",
      "Bluesky",
    ),
  ],
  BILIBILI: [
    ["https://www.bilibili.com/video/BV13x41117TL", "yt-dlp", "BiliBili"],
    [
      "https://www.bilibili.com/opus/12345",
      "gallery-dl",
      "bilibili",
    ],
    ["https://m.bilibili.com/video/BV13x41117TL", "yt-dlp", "BiliBili"],
    [
      "https://www.bilibili.tv/en/video/2041863208",
      "yt-dlp",
      "BiliIntl",
    ],
  ],
  LOOM: [["https://www.loom.com/share/43d05f362f734614a2e81b4694a3a523", "yt-dlp", "Loom"]],
  NEWGROUNDS: [["https://www.newgrounds.com/portal/view/297383", "yt-dlp", "Newgrounds"], [
    "https://www.newgrounds.com/audio/listen/549479",
    "yt-dlp",
    "Newgrounds",
  ], ["https://www.newgrounds.com/art/view/tomfulp/ryu-is-hawt", "gallery-dl", "newgrounds"]],
  OKRU: [
    ["https://ok.ru/video/1484130554189", "yt-dlp", "Odnoklassniki"],
    [
      "https://odnoklassniki.ru/video/20079905452",
      "yt-dlp",
      "Odnoklassniki",
    ],
    ["https://m.ok.ru/video/1484130554189", "yt-dlp", "Odnoklassniki"],
    [
      "https://mobile.ok.ru/video/1484130554189",
      "yt-dlp",
      "Odnoklassniki",
    ],
  ],
  RUTUBE: [["https://rutube.ru/video/3eac3b4561676c17df9132a9a1e62e3e/", "yt-dlp", "Rutube"]],
  SNAPCHAT: [[
    "https://www.snapchat.com/spotlight/W7_EDlXWTBiXAEEniNoMPwAAYYWtidGhudGZpAX1TKn0JAX1TKnXJAAAAAA",
    "yt-dlp",
    "SnapchatSpotlight",
  ]],
  SOUNDCLOUD: [["https://soundcloud.com/ethmusic/lostin-powers-she-so-heavy", "yt-dlp", "Soundcloud"], [
    "https://m.soundcloud.com/ethmusic/lostin-powers-she-so-heavy",
    "yt-dlp",
    "Soundcloud",
  ]],
  STREAMABLE: [["https://streamable.com/dnd1", "yt-dlp", "Streamable"]],
  TUMBLR: [[
    "https://tatianamaslanydaily.tumblr.com/post/54196191430/orphan-black-dvd-extra-behind-the-scenes",
    "yt-dlp",
    "Tumblr",
  ], ["https://www.tumblr.com/shieldfoss/675519763813908480", "yt-dlp", "Tumblr"]],
  TWITCH: [["https://clips.twitch.tv/FaintLightGullWholeWheat", "yt-dlp", "TwitchClips"], [
    "https://www.twitch.tv/xqc/clip/CulturedAmazingKuduDatSheffy-TiZ_-ixAGYR3y2Uy",
    "yt-dlp",
    "TwitchClips",
  ], ["https://m.twitch.tv/clip/FaintLightGullWholeWheat", "yt-dlp", "TwitchClips"]],
  VK: [
    ["https://vk.com/video205387401_165548505", "yt-dlp", "VK"],
    [
      "https://vk.com/wall-23538238_35",
      "gallery-dl",
      "vk",
    ],
    ["https://vk.com/album-165740836_281339889", "gallery-dl", "vk"],
    [
      "https://m.vk.com/video205387401_165548505",
      "yt-dlp",
      "VK",
    ],
    ["https://vkvideo.ru/video205387401_165548505", "yt-dlp", "VK"],
  ],
  XIAOHONGSHU: [
    ["https://www.xiaohongshu.com/explore/6411cf99000000001300b6d9", "yt-dlp", "XiaoHongShu"],
    [
      "https://www.xiaohongshu.com/discovery/item/674051740000000007027a15?xsec_token=CBgeL8Dxd1ZWBhwqRd568gAZ_iwG-9JIf9tnApNmteU2E=",
      "yt-dlp",
      "XiaoHongShu",
    ],
  ],
  // No tool has a Threads extractor; the shapes are cobalt's, FxEmbed's and yt-dlp's pull requests'.
  THREADS: [
    ["https://www.threads.com/@mosseri/post/DDupwppSjcp", "threads", "post"],
    ["https://www.threads.net/@mds/post/DObJvDoDkQI?xmt=AQF0", "threads", "post"],
    ["https://www.threads.com/@threads/post/C04KN6fODek/media", "threads", "post"],
    ["https://www.threads.net/t/CzecNnZPaxr", "threads", "post"],
    ["https://www.threads.com/_/post/DXO2PlPEoOQ", "threads", "post"],
  ],
};

const claims = installedToolClaims();
afterAll(() => claims.close());

describe.each(platformTable.map((row) => [row.id, row] as const))("%s", (id, row) => {
  const links = samples[id as keyof typeof samples] ?? [];

  test("has sample links, and its reference post (where it has one) is one of its links", () => {
    expect(links.length).toBeGreaterThan(0);
    if (row.referencePost !== null) expect(detectPlatform(new URL(row.referencePost), [])).toBe(id);
  });

  test.each(links)("%s goes to %s, and its extractor %s claims it", async (url, tool, extractor) => {
    // A mirror's link is read on the platform's canonical host: that link is the one the tool must claim.
    const link = canonicalLink(new URL(url));
    expect(detectPlatform(new URL(url), [])).toBe(id);
    expect(detectPlatform(link, [])).toBe(id);
    // The reader the row names: X's and Bluesky's own APIs and Xiaohongshu's pages read every link of theirs; yt-dlp's
    // extractor still has to claim it, so that the link shape is one the platform has.
    if (row.reader === "yt-dlp+gallery-dl") expect(isPhotoShaped(link, id) ? "gallery-dl" : "yt-dlp").toBe(tool);
    else if (row.reader === "threads") return void expect(postOf(link)).not.toBeNull();
    else expect(tool).toBe("yt-dlp");
    const claim = await claims.claimOf(link);
    expect(tool === "yt-dlp" ? claim.ytdlp : claim.gallerydl).toBe(extractor);
  });
});
