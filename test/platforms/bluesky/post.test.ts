// Bluesky's recorded AppView answers as post records (test/fixtures/upstream/bluesky/).
import { describe, expect, test } from "vitest";
import { ApiError } from "../../../src/http/problem.ts";
import { bestVariant } from "../../../src/platforms/bluesky/playlist.ts";
import { threadToPost } from "../../../src/platforms/bluesky/post.ts";
import { postRefOf } from "../../../src/platforms/bluesky/url.ts";
import { PostRecord } from "../../../src/platforms/records.ts";
import {
  asThread,
  cardThread,
  feed,
  imagesThread,
  linkOf,
  quoteOfVideo,
  quotes,
  videoPost,
} from "../../fakes/bluesky.ts";

const refOf = (post: { uri: string; author: { handle: string } }) => postRefOf(new URL(linkOf(post)))!;
const read = (answer: { thread: { post: { uri: string; author: { handle: string } } } }) => {
  const post = threadToPost(answer, refOf(answer.thread.post));
  expect(PostRecord.parse(post.record)).toEqual(post.record);
  return post;
};
const feedPost = (rkey: string) => feed.find((item) => item.post.uri.endsWith(`/${rkey}`))!.post;

describe("threadToPost()", () => {
  test("a post with an image: its text, author, the full-size file on the CDN, its (empty) alt text", () => {
    const { record, playlists } = read(imagesThread as never);
    const image =
      "https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ic6zqvuw5ulmfpjiwnhsr2ns/bafkreictkyws7qbruuupes52t6k5o5o5qfggf7pm6urzz7dyty53gzu3h4@jpeg";
    expect(record).toMatchObject({
      platform: "BLUESKY",
      id: "3k7qmjev5lr2s",
      url: "https://bsky.app/profile/soubhikbarari.bsky.social/post/3k7qmjev5lr2s",
      authorName: "Soubhik Barari",
      needsServerProcessing: false,
      imageUrls: [image],
      posterUrl: image,
      videoVariants: [],
      card: null,
    });
    expect(record.text).toMatch(/^Excited to be a speaker .*rstats\.ai\/gov\.html$/s);
    // A 2023 post: no aspectRatio, so no size.
    expect(record.media).toEqual([{
      type: "photo",
      url: image,
      posterUrl: null,
      width: null,
      height: null,
      durationSec: null,
      videoVariants: [],
      altText: null,
    }]);
    expect(playlists).toEqual([null]);
  });

  test("images keep their order, sizes and alt texts", () => {
    const { record } = read(asThread(feedPost("3kyw6fpeehk2z")));
    expect(record.media.map((item) => [item.type, item.width, item.height, item.altText])).toEqual([
      ["photo", 673, 733, "A picture of two templates for Annual Reviews and the APSR"],
      ["photo", 717, 754, "An image of a Tufte-style template and my preprint template"],
    ]);
  });

  test("a video post: its HLS playlist for page mode, its thumbnail as poster, its alt text", () => {
    const { record, playlists } = read(asThread(videoPost));
    expect(record).toMatchObject({
      id: "3lc7pjcxyz22c",
      authorName: "bskyr R package",
      text: "testing sending videos from R",
      needsServerProcessing: true,
      imageUrls: [],
    });
    const base =
      "https://video.bsky.app/watch/did%3Aplc%3A5c2r73erhng4bszmxlfdtscf/bafkreig6cnr4gjl7ibnpveogcrv3cs6rtb2zciwd2uh652yi547cb5bbly";
    expect(record.media).toEqual([{
      type: "video",
      url: null,
      posterUrl: `${base}/thumbnail.jpg`,
      width: null,
      height: null,
      durationSec: null,
      videoVariants: [{ qualityLabel: "unknown", formatId: "hls", contentType: "video/mp4" }],
      altText: "a carousel of package logos, all hexagonal",
    }]);
    expect(record.videoVariants).toEqual(record.media[0]!.videoVariants);
    expect(playlists).toEqual([`${base}/playlist.m3u8`]);
  });

  test("a quote of a video post: the quoted video is the post's media", () => {
    const { record, playlists } = read(asThread(quoteOfVideo));
    expect(record.text).toMatch(/^And videos are live!/);
    expect(record.media.map((item) => [item.type, item.altText])).toEqual([[
      "video",
      "a carousel of package logos, all hexagonal",
    ]]);
    expect(playlists[0]).toMatch(/^https:\/\/video\.bsky\.app\/watch\/.*\/playlist\.m3u8$/);
  });

  test("a link card is the record's card", () => {
    const { record } = read(cardThread as never);
    expect(record.card).toEqual({
      url: expect.stringMatching(/^https?:\/\//),
      title: expect.any(String),
      description: expect.any(String),
      imageUrl: expect.stringMatching(/^https:\/\/cdn\.bsky\.app\/img\/feed_thumbnail\//),
    });
    expect(record.media).toEqual([]);
  });

  test("a quote with media of its own: its card, then the quoted post's pictures", () => {
    const { record } = read(asThread(feedPost("3kz2mjf5rjs2q")));
    expect(record.card?.url).toMatch(/^https?:\/\//);
    expect(record.media.length).toBeGreaterThan(0);
    expect(
      record.media.every((item) =>
        item.type === "photo" && item.url!.startsWith("https://cdn.bsky.app/img/feed_fullsize/")
      ),
    ).toBe(true);
  });

  test("a quote's own link card stays the quote's: the post shows its pictures and no card", () => {
    const { record } = read(asThread(feedPost("3lnghukd7vk22")));
    expect(record.card).toBeNull();
    expect(record.media.map((item) => item.altText?.slice(0, 30))).toEqual(["Typr logo, which is the letter"]);
  });

  test("a plain quote of a post with a link card, and a quote beside a card (getQuotes)", () => {
    const [plain, withCard] = quotes.map((post) => read(asThread(post)).record);
    expect(plain!.media).toEqual([]);
    expect(plain!.card).toBeNull();
    expect(withCard!.card?.url).toMatch(/^https?:\/\//);
  });

  test("a deleted post is 404 not_found, a blocked one 404 post_unavailable, an unknown shape 502", () => {
    const ref = postRefOf(new URL("https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g"))!;
    const codeOf = (answer: unknown) => {
      try {
        threadToPost(answer, ref);
      } catch (error) {
        return error instanceof ApiError ? [error.status, error.code] : error;
      }
    };
    expect(codeOf({ thread: { $type: "app.bsky.feed.defs#notFoundPost", uri: "at://x", notFound: true } })).toEqual([
      404,
      "not_found",
    ]);
    expect(codeOf({ thread: { $type: "app.bsky.feed.defs#blockedPost", uri: "at://x", blocked: true } })).toEqual([
      404,
      "post_unavailable",
    ]);
    expect(codeOf({ posts: [] })).toEqual([502, "upstream_failed"]);
  });
});

describe("postRefOf()", () => {
  test.each([
    ["https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g", "bsky.app", "3l3vgf77uco2g"],
    ["https://bsky.app/profile/Alice.BSKY.social/post/3l3vgf77uco2g/", "alice.bsky.social", "3l3vgf77uco2g"],
    [
      "https://bsky.app/profile/did:plc:z72i7hdynmk6r22z27h6tvur/post/3l3vgf77uco2g",
      "did:plc:z72i7hdynmk6r22z27h6tvur",
      "3l3vgf77uco2g",
    ],
  ])("%s", (link, actor, rkey) => {
    expect(postRefOf(new URL(link))).toEqual({ actor, rkey });
  });

  test.each([
    "https://bsky.app/profile/bsky.app",
    "https://bsky.app/profile/a b/post/3l3",
    "https://bsky.app/profile/bsky.app/post/..",
    "https://bsky.app/",
  ])("%s names no post", (link) => {
    expect(postRefOf(new URL(link))).toBeNull();
  });
});

describe("bestVariant()", () => {
  const base = new URL("https://video.bsky.app/watch/did/cid/playlist.m3u8");
  test("the stream of the highest bandwidth, resolved against the master", () => {
    const master =
      "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=640x360\n360p/video.m3u8?s=1\n#EXT-X-STREAM-INF:BANDWIDTH=1500000,RESOLUTION=1280x720\n720p/video.m3u8?s=1\n";
    expect(bestVariant(master, base).href).toBe("https://video.bsky.app/watch/did/cid/720p/video.m3u8?s=1");
  });
  test("a media playlist is its own stream; anything else is 502", () => {
    expect(bestVariant("#EXTM3U\n#EXTINF:2,\nseg0.ts\n", base)).toBe(base);
    expect(() => bestVariant("<html>", base)).toThrow(expect.objectContaining({ code: "upstream_failed" }));
  });
});
