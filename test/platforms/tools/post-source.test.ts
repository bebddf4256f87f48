// Which tool describes a post: the link's shape (platforms/sources.ts), then yt-dlp's answer and
// the fallback's rule (platforms/tools/post-source.ts). The tools' descriptions are scripted here (each
// says what its tool said); the tools themselves run in
// test/platforms/tools/gallerydl/photo-posts.test.ts and test/platforms/tools/ytdlp/.
import { describe, expect, test } from "vitest";
import { ApiError, upstreamFailed } from "../../../src/http/problem.ts";
import type { GalleryClient } from "../../../src/platforms/tools/gallerydl/client.ts";
import { isPhotoShaped, soundOnlyRecord } from "../../../src/platforms/tools/post-source.ts";
import type { PlatformId, PostRecord } from "../../../src/platforms/records.ts";
import type { Ask, Plan, Source, Wanted } from "../../../src/platforms/source.ts";
import { createSources } from "../../../src/platforms/sources.ts";
import type { TweetClient } from "../../../src/platforms/x/client.ts";
import type { PageClient } from "../../../src/platforms/tools/ytdlp/client.ts";

const noTweets: TweetClient = {
  getTweet: () => Promise.reject(new Error("X is not asked here")),
  getTweetPlaylists: () => Promise.reject(new Error("X is not asked here")),
};
/** A source of the service's own that these tests never reach. */
const notAsked = (name: string): Source => ({
  tools: () => [],
  extracts: false,
  describe: () => Promise.reject(new Error(`${name} is not asked here`)),
  plan: () => Promise.reject(new Error(`${name} is not asked here`)),
});
const noThreads = { expand: () => Promise.reject(new Error("no thread is asked for here")) };
const ownSources = {
  tweets: noTweets,
  own: new Map([
    ["BLUESKY", notAsked("Bluesky")],
    ["XIAOHONGSHU", notAsked("Xiaohongshu")],
    ["THREADS", notAsked("Threads")],
  ]),
  xExpansion: noThreads,
  xVideoHost: {
    text: () => Promise.reject(new Error("X's video host is not asked here")),
    json: () => Promise.reject(new Error("X's video host is not asked here")),
  },
};

/** The post's record from the source the link's platform row names, as `post` asks it. */
function describePost(
  tools: { pages: PageClient; galleries: GalleryClient },
  url: URL,
  platform: PlatformId,
): Promise<PostRecord> {
  const link = { url, platform };
  const noAsk: Ask = () => Promise.reject(new Error("a description asks no source for a plan"));
  return createSources({ ...ownSources, ...tools }, noAsk)(link).describe(link);
}

const noVideo = () => new ApiError("unsupported_url", "No downloadable media was found at this link.");
const photoRecord = (media: number): PostRecord => ({
  platform: "REDDIT",
  id: "a",
  url: "u",
  text: null,
  authorName: null,
  durationSec: null,
  posterUrl: null,
  needsServerProcessing: false,
  videoVariants: [],
  imageUrls: [],
  subtitles: [],
  card: null,
  media: Array.from(
    { length: media },
    () => ({
      type: "photo" as const,
      url: "https://i.redd.it/a.jpg",
      posterUrl: null,
      width: 1,
      height: 1,
      durationSec: null,
      videoVariants: [],
      altText: null,
    }),
  ),
});

/** A listing no test of these asks for (a profile's, in a job). */
const unused = () => Promise.reject(new Error("unused"));

/** Sources that answer as told and count their runs. */
function sources(ytdlp: () => Promise<never> | Promise<object>, gallery: () => Promise<PostRecord>) {
  const runs = { ytdlp: 0, gallery: 0 };
  const pages = {
    info: () => (runs.ytdlp++, ytdlp()),
    select: () => Promise.reject(new Error("unused")),
  } as unknown as PageClient;
  const galleries: GalleryClient = { post: () => (runs.gallery++, gallery()), listing: unused };
  return { pages, galleries, runs };
}

describe("describePost()", () => {
  test("a photo-shaped link goes to gallery-dl alone", async () => {
    const s = sources(() => Promise.reject(new Error("yt-dlp must not run")), async () => photoRecord(3));
    const record = await describePost(s, new URL("https://www.instagram.com/p/C9kQ2mXoR3a/"), "INSTAGRAM");
    expect(record.media).toHaveLength(3);
    expect(s.runs).toEqual({ ytdlp: 0, gallery: 1 });
  });

  test("a post yt-dlp finds no video in is read by gallery-dl on a platform it knows", async () => {
    const s = sources(() => Promise.reject(noVideo()), async () => photoRecord(2));
    expect((await describePost(s, new URL("https://www.reddit.com/r/pics/comments/abc/x/"), "REDDIT")).media)
      .toHaveLength(2);
    expect(s.runs).toEqual({ ytdlp: 1, gallery: 1 });
  });

  test("yt-dlp's answer stands when gallery-dl finds nothing, cannot read the link, or the platform is not one of its", async () => {
    const link = new URL("https://www.reddit.com/r/pics/comments/abc/x/");
    await expect(describePost(sources(() => Promise.reject(noVideo()), async () => photoRecord(0)), link, "REDDIT"))
      .rejects.toMatchObject({ code: "unsupported_url" });
    await expect(
      describePost(sources(() => Promise.reject(noVideo()), () => Promise.reject(noVideo())), link, "REDDIT"),
    ).rejects.toMatchObject({ code: "unsupported_url" });
    const youtube = sources(() => Promise.reject(noVideo()), async () => photoRecord(1));
    await expect(describePost(youtube, new URL("https://www.youtube.com/watch?v=a"), "YOUTUBE")).rejects.toMatchObject({
      code: "unsupported_url",
    });
    expect(youtube.runs.gallery).toBe(0);
  });

  test("a link the tools find no post at is told the shapes the platform's module knows for its host", async () => {
    const neither = sources(() => Promise.reject(noVideo()), () => Promise.reject(noVideo()));
    const failure = describePost(neither, new URL("https://old.reddit.com/r/pics/about/"), "REDDIT");
    await expect(failure).rejects.toMatchObject({ status: 400, code: "unsupported_url" });
    await expect(failure).rejects.toThrow(
      "No downloadable media was found at this link. Links of reddit.com this service reads look like: https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/ (a post), https://www.reddit.com/gallery/hrrh23 (a photo post), https://www.reddit.com/r/videos/s/Xyz123 (a short link), https://reddit.com/video/ifg2emt5ck0e1 (a short link).",
    );
    // Another failure says what it says.
    const blocked = new ApiError("upstream_blocked", "refused");
    await expect(
      describePost(
        sources(() => Promise.reject(blocked), () => Promise.reject(blocked)),
        new URL("https://www.youtube.com/about"),
        "YOUTUBE",
      ),
    )
      .rejects.toBe(blocked);
  });

  test("after no video gallery-dl's own refusal is told; after yt-dlp's own failure, yt-dlp's", async () => {
    const link = new URL("https://www.tiktok.com/@a/video/1");
    const blocked = new ApiError("upstream_blocked", "refused");
    await expect(describePost(sources(() => Promise.reject(noVideo()), () => Promise.reject(blocked)), link, "TIKTOK"))
      .rejects.toBe(blocked);
    const broken = upstreamFailed("yt-dlp's extractor is out of date");
    await expect(describePost(sources(() => Promise.reject(broken), () => Promise.reject(blocked)), link, "TIKTOK"))
      .rejects.toBe(broken);
  });

  test("a post yt-dlp fails on is read by gallery-dl when it can", async () => {
    const s = sources(
      () => Promise.reject(upstreamFailed("Instagram sent an empty media response")),
      async () => photoRecord(1),
    );
    expect((await describePost(s, new URL("https://www.instagram.com/reel/C9kQ2mXoR3a/"), "INSTAGRAM")).media)
      .toHaveLength(1);
    expect(s.runs).toEqual({ ytdlp: 1, gallery: 1 });
  });

  test("a platform's refusal, a missing post and the time cap stand without asking gallery-dl", async () => {
    const link = new URL("https://www.tiktok.com/@a/video/1");
    for (
      const error of [
        new ApiError("upstream_blocked", "refused"),
        new ApiError("not_found", "gone"),
        new ApiError("upstream_timeout", "slow"),
      ]
    ) {
      const s = sources(() => Promise.reject(error), async () => photoRecord(1));
      await expect(describePost(s, link, "TIKTOK")).rejects.toBe(error);
      expect(s.runs.gallery).toBe(0);
    }
  });
});

describe("a post yt-dlp reads only sound in", () => {
  const music: PostRecord = {
    ...photoRecord(0),
    media: [{
      type: "video",
      url: null,
      posterUrl: null,
      width: null,
      height: null,
      durationSec: 24,
      videoVariants: [{ qualityLabel: "audio", formatId: "audio", contentType: "audio/mpeg" }],
      altText: null,
    }],
  };
  const link = new URL("https://www.tiktok.com/@breadlab/video/7436185392745209118");
  // How yt-dlp's TikTok extractor describes a slideshow: its music as the one format.
  const slideshowMusic = {
    id: "7436185392745209118",
    formats: [{
      format_id: "audio",
      url: "https://sf16-ies-music-va.tiktokcdn.com/obj/a.mp3",
      ext: "mp3",
      vcodec: "none",
      acodec: "mp3",
    }],
  };
  const ytdlpMusic = { info: async () => slideshowMusic } as unknown as PageClient;

  test("is gallery-dl's pictures when it finds some (a TikTok slideshow behind a /video/ link)", async () => {
    const record = await describePost(
      { pages: ytdlpMusic, galleries: { post: async () => photoRecord(4), listing: unused } },
      link,
      "TIKTOK",
    );
    expect(record.media).toHaveLength(4);
  });

  test("stays yt-dlp's when gallery-dl finds no pictures or fails", async () => {
    expect(soundOnlyRecord(music)).toBe(true);
    expect(soundOnlyRecord(photoRecord(1))).toBe(false);
    for (const gallery of [async () => photoRecord(0), () => Promise.reject(noVideo())]) {
      const record = await describePost(
        { pages: ytdlpMusic, galleries: { post: gallery, listing: unused } },
        link,
        "TIKTOK",
      );
      expect(record.videoVariants).toEqual([{ qualityLabel: "audio", formatId: "audio", contentType: "audio/mpeg" }]);
    }
  });
});

describe("a download's plan by the same rule", () => {
  const slideshowMusic = {
    id: "7436185392745209118",
    formats: [{
      format_id: "audio",
      url: "https://sf16-ies-music-va.tiktokcdn.com/obj/a.mp3",
      ext: "mp3",
      vcodec: "none",
      acodec: "mp3",
    }],
  };

  /** The plan the link's source makes, asked as the download handler asks; yt-dlp's description and choice scripted. */
  function planDownload(
    ytdlp: () => Promise<typeof slideshowMusic>,
    gallery: () => Promise<PostRecord>,
    url: URL,
    platform: PlatformId,
    wanted: Partial<Wanted> = {},
  ) {
    const runs = { ytdlp: 0, gallery: 0 };
    const pages = {
      info: () => (runs.ytdlp++, ytdlp()),
      select: async () => (runs.ytdlp++, { info: await ytdlp(), formats: (await ytdlp()).formats }),
    } as unknown as PageClient;
    const galleries: GalleryClient = { post: () => (runs.gallery++, gallery()), listing: unused };
    const link = { url, platform };
    const ask: Ask = (source, asked, what, asker) => source.plan(asked, what, asker);
    const asker = { signal: new AbortController().signal, holder: null };
    const all: Wanted = {
      output: "mp4",
      format: null,
      index: null,
      subtitles: null,
      filename: null,
      clip: null,
      ...wanted,
    };
    return { runs, plan: ask(createSources({ ...ownSources, pages, galleries }, ask)(link), link, all, asker) };
  }
  const reddit = new URL("https://www.reddit.com/r/pics/comments/abc/x/");
  const tiktok = new URL("https://www.tiktok.com/@breadlab/video/7436185392745209118");
  const relayOf = (plan: Plan) => (plan.kind === "relay" ? { url: plan.url.href, name: plan.name } : plan.kind);

  test("a post yt-dlp finds no video in relays gallery-dl's item, from gallery-dl's one run", async () => {
    const { runs, plan } = planDownload(() => Promise.reject(noVideo()), async () => photoRecord(2), reddit, "REDDIT", {
      index: 2,
    });
    expect(relayOf(await plan)).toEqual({ url: "https://i.redd.it/a.jpg", name: "reddit_a_2" });
    expect(runs).toEqual({ ytdlp: 1, gallery: 1 });
  });

  test("after yt-dlp's own failure gallery-dl's record answers, and an index past its last item is 400", async () => {
    const { plan } = planDownload(
      () => Promise.reject(upstreamFailed("extractor out of date")),
      async () => photoRecord(1),
      reddit,
      "REDDIT",
      { index: 3 },
    );
    await expect(plan).rejects.toMatchObject({
      code: "invalid_parameter",
      message: expect.stringContaining("1 item;"),
    });
  });

  test("yt-dlp's failure stands when gallery-dl finds nothing", async () => {
    const { plan } = planDownload(() => Promise.reject(noVideo()), async () => photoRecord(0), reddit, "REDDIT");
    await expect(plan).rejects.toMatchObject({ code: "unsupported_url" });
  });

  test("sound alone: as MP4 gallery-dl's pictures win; as MP3 yt-dlp's sound is the answer and gallery-dl is not asked", async () => {
    const pictures = planDownload(async () => slideshowMusic, async () => photoRecord(4), tiktok, "TIKTOK");
    expect(relayOf(await pictures.plan)).toEqual({ url: "https://i.redd.it/a.jpg", name: "tiktok_a" });
    const sound = planDownload(async () => slideshowMusic, async () => photoRecord(4), tiktok, "TIKTOK", {
      output: "mp3",
    });
    const plan = await sound.plan;
    expect(plan.kind === "remux" && plan.ffmpeg.inputs.map((input) => input.url)).toEqual([
      "https://sf16-ies-music-va.tiktokcdn.com/obj/a.mp3",
    ]);
    expect(plan.kind === "remux" && plan.name).toBe("tiktok_7436185392745209118");
    expect(sound.runs.gallery).toBe(0);
  });

  test("sound alone: an index names the item of gallery-dl's record, as MP4 or MP3, from one run of each tool", async () => {
    const pictures = { ...photoRecord(3), id: "7436185392745209118" };
    for (const output of ["mp4", "mp3"] as const) {
      const third = planDownload(async () => slideshowMusic, async () => pictures, tiktok, "TIKTOK", {
        index: 3,
        output,
      });
      if (output === "mp4") {
        expect(relayOf(await third.plan)).toEqual({
          url: "https://i.redd.it/a.jpg",
          name: "tiktok_7436185392745209118_3",
        });
      } else {
        // Item 3 is a picture, as the record says, not past yt-dlp's one item of sound.
        await expect(third.plan).rejects.toMatchObject({ message: expect.stringContaining("is a photo") });
      }
      expect(third.runs).toEqual({ ytdlp: 1, gallery: 1 });
    }
  });
});

// Issue 43, item 4: the one rule of every record, whichever source made it.
describe("a record with no item and no text", () => {
  const recordSource = (record: PostRecord): Source => ({ ...notAsked("Bluesky"), describe: async () => record });
  const ask = (record: PostRecord) => {
    const link = { url: new URL("https://bsky.app/profile/a.bsky.social/post/3k"), platform: "BLUESKY" as const };
    return createSources({
      ...ownSources,
      ...sources(() => Promise.reject(noVideo()), () => Promise.reject(noVideo())),
      own: new Map([["BLUESKY", recordSource(record)]]),
    }, () => Promise.reject(new Error("a description asks no source for a plan")))(link).describe(link);
  };

  test("is 404 no_media from any source, not 200 with nothing in it", async () => {
    await expect(ask(photoRecord(0))).rejects.toMatchObject({ status: 404, code: "no_media" });
  });

  test("with text, or with an item, it is the answer", async () => {
    await expect(ask({ ...photoRecord(0), text: "Words only" })).resolves.toMatchObject({ text: "Words only" });
    await expect(ask(photoRecord(1))).resolves.toMatchObject({ media: [expect.anything()] });
  });
});

describe("isPhotoShaped()", () => {
  const cases: [string, PlatformId, boolean][] = [
    ["https://www.instagram.com/p/C9kQ2mXoR3a/", "INSTAGRAM", true],
    ["https://www.instagram.com/coastwalker/p/C9kQ2mXoR3a/", "INSTAGRAM", true],
    ["https://www.instagram.com/reel/C9kQ2mXoR3a/", "INSTAGRAM", false],
    ["https://www.tiktok.com/@breadlab/photo/7436185392745209118", "TIKTOK", true],
    ["https://www.tiktok.com/@breadlab/video/7436185392745209118", "TIKTOK", false],
    ["https://www.reddit.com/gallery/1gq3xk7", "REDDIT", true],
    ["https://www.reddit.com/r/pics/comments/1gq3xk7/x/", "REDDIT", false],
    ["https://www.facebook.com/photo/?fbid=1", "FACEBOOK", true],
    ["https://www.facebook.com/watch/?v=1", "FACEBOOK", false],
    ["https://www.youtube.com/p/abc", "YOUTUBE", false],
  ];
  test.each(cases)("%s (%s) -> %s", (link, platform, expected) => {
    expect(isPhotoShaped(new URL(link), platform)).toBe(expected);
  });
});
