import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import {
  canonicalLink,
  detectPlatform,
  readerOf,
  requireOnePost,
  shortLinkRow,
  supportedPlatformsText,
  unknownShape,
} from "../../src/platforms/table.ts";
import { platformList } from "../../src/platforms/list.ts";

const platformOf = (url: string, extra: string[] = []) => detectPlatform(new URL(url), extra);

describe("detectPlatform()", () => {
  test.each([
    ["https://twitter.com/nasa/status/1", "X"],
    ["https://mobile.twitter.com/nasa/status/1", "X"],
    ["https://x.com/nasa/status/1", "X"],
    ["https://www.x.com/nasa/status/1", "X"],
    ["https://www.instagram.com/p/abc/", "INSTAGRAM"],
    ["https://www.youtube.com/watch?v=hwMkbaS_M_c", "YOUTUBE"],
    ["https://m.youtube.com/watch?v=hwMkbaS_M_c", "YOUTUBE"],
    ["https://youtu.be/hwMkbaS_M_c", "YOUTUBE"],
    ["https://music.youtube.com/watch?v=x", "YOUTUBE"],
    ["https://www.tiktok.com/@a/video/1", "TIKTOK"],
    ["https://vm.tiktok.com/ZMabc/", "TIKTOK"],
    ["https://vt.tiktok.com/ZSabc/", "TIKTOK"],
    ["https://www.reddit.com/r/a/comments/b/", "REDDIT"],
    ["https://old.reddit.com/r/a/comments/b/", "REDDIT"],
    ["https://redd.it/abc", "REDDIT"],
    ["https://v.redd.it/abc", "REDDIT"],
    ["https://www.facebook.com/watch/?v=1", "FACEBOOK"],
    ["https://fb.watch/abc/", "FACEBOOK"],
    ["https://www.pinterest.com/pin/1/", "PINTEREST"],
    ["https://www.pinterest.co.uk/pin/1/", "PINTEREST"],
    ["https://de.pinterest.com/pin/1/", "PINTEREST"],
    ["https://pinterest.de/pin/1/", "PINTEREST"],
    ["https://www.pinterest.com.au/pin/1/", "PINTEREST"],
    ["https://pin.it/abc", "PINTEREST"],
    ["https://www.amazon.com/dp/B0", "AMAZON"],
    ["https://www.amazon.de/dp/B0", "AMAZON"],
    ["https://www.amazon.co.jp/dp/B0", "AMAZON"],
    ["https://www.amazon.co.uk/dp/B0", "AMAZON"],
    ["https://www.amazon.com.br/dp/B0", "AMAZON"],
    ["https://vimeo.com/443437002", "VIMEO"],
    ["https://player.vimeo.com/video/443437002", "VIMEO"],
    ["https://www.dailymotion.com/video/x8", "DAILYMOTION"],
    ["https://dai.ly/x8", "DAILYMOTION"],
  ])("%s is %s", (url, platform) => {
    expect(platformOf(url)).toBe(platform);
  });

  test("compares hosts case-insensitively and ignores a trailing dot", () => {
    expect(platformOf("https://WWW.YouTube.COM/watch?v=x")).toBe("YOUTUBE");
    expect(platformOf("https://vimeo.com./1")).toBe("VIMEO");
  });

  test.each([
    "https://example.com/video",
    "https://notyoutube.com/watch?v=x",
    "https://youtube.com.evil.example/watch?v=x",
    "https://amazon.xyz/dp/1",
    "https://pinterest.evil/pin/1",
    "https://video.twimg.com/amplify_video/1/vid/1.mp4",
  ])("%s is unsupported", (url) => {
    expect(platformOf(url)).toBeNull();
  });

  test("operator-given extra hosts are OTHER on the port they name, else on 80 and 443 only", () => {
    const extra = ["127.0.0.1:8123", "Videos.Example.org", "plain.example:80"];
    expect(platformOf("http://127.0.0.1:8123/page.html", extra)).toBe("OTHER");
    expect(platformOf("http://127.0.0.1:9999/page.html", extra)).toBeNull();
    expect(platformOf("http://127.0.0.1:5432/", extra)).toBeNull();
    expect(platformOf("http://127.0.0.1/page.html", extra)).toBeNull();
    expect(platformOf("https://videos.example.org/a", extra)).toBe("OTHER");
    expect(platformOf("http://videos.example.org/a", extra)).toBe("OTHER");
    expect(platformOf("https://videos.example.org:8443/a", extra)).toBeNull();
    expect(platformOf("https://cdn.videos.example.org/a", extra)).toBe("OTHER");
    expect(platformOf("http://plain.example/a", extra)).toBe("OTHER");
    expect(platformOf("https://plain.example/a", extra)).toBeNull();
    expect(platformOf("https://example.org/a", extra)).toBeNull();
    expect(platformOf("http://127.0.0.2/a", extra)).toBeNull();
  });

  test("a platform host stays its platform even when also configured as extra", () => {
    expect(platformOf("https://vimeo.com/1", ["vimeo.com"])).toBe("VIMEO");
  });

  test("the human list names every platform", () => {
    expect(supportedPlatformsText).toBe(
      "X (Twitter), Instagram, YouTube, TikTok, Reddit, Facebook, Pinterest, Amazon, Vimeo, Dailymotion, Bluesky, Bilibili, Loom, Newgrounds, " +
        "OK.ru, Rutube, Snapchat, SoundCloud, Streamable, Tumblr, Twitch, VK, Xiaohongshu (RedNote), Threads",
    );
  });
});

describe("canonicalLink()", () => {
  test.each([
    ["https://fxtwitter.com/jack/status/20", "https://x.com/jack/status/20"],
    ["http://d.fxtwitter.com:8443/jack/status/20?s=20", "https://x.com/jack/status/20?s=20"],
    ["https://fixupx.com/jack/status/20/photo/1", "https://x.com/jack/status/20/photo/1"],
    ["https://www.ddinstagram.com/reel/Chunk8-jurw/", "https://www.instagram.com/reel/Chunk8-jurw/"],
    ["https://instagr.am/p/aye83DjauH/", "https://www.instagram.com/p/aye83DjauH/"],
    ["https://vxtiktok.com/@a/video/1", "https://www.tiktok.com/@a/video/1"],
    ["https://fxbsky.app/profile/bsky.app/post/3l3vgf77uco2g", "https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g"],
    ["https://m.bilibili.com/video/BV13x41117TL", "https://www.bilibili.com/video/BV13x41117TL"],
    ["https://m.ok.ru/video/1", "https://ok.ru/video/1"],
  ])("reads %s as %s", (pasted, canonical) => {
    expect(canonicalLink(new URL(pasted)).href).toBe(canonical);
  });

  // Every mirror of every module (X's seven, Instagram's, TikTok's, Bluesky's, ...): the mirror's user, password and
  // port are its own, and go no further.
  const mirrors = platformList.flatMap((row) => Object.entries(row.mirrors ?? {}));
  test.each(mirrors)("reads %s's link with a user, password and port on %s, without them", (mirror, canonical) => {
    const pasted = new URL(`http://user:secret@${mirror}:8443/jack/status/20?s=20`);
    expect(canonicalLink(pasted).href).toBe(`https://${canonical}/jack/status/20?s=20`);
  });

  test.each([
    "https://x.com/jack/status/20",
    "https://www.bilibili.com/video/BV13x41117TL",
    "https://notfxtwitter.com/jack/status/20",
    "https://example.com/a",
  ])("leaves %s as it is", (url) => {
    expect(canonicalLink(new URL(url)).href).toBe(url);
  });
});

describe("shortLinkRow()", () => {
  // Real shapes from the platforms' share buttons, yt-dlp's and gallery-dl's tests and issue threads.
  test.each([
    ["https://vm.tiktok.com/ZMeMf2Ljq/", "TIKTOK"],
    ["https://vt.tiktok.com/ZSjUKYTWv/", "TIKTOK"],
    ["https://www.tiktok.com/t/ZTRfKbxUf/", "TIKTOK"],
    ["https://redd.it/6rrwyj", "REDDIT"],
    ["https://www.reddit.com/r/pics/s/Fhh7ABZYnw", "REDDIT"],
    ["https://fb.watch/aTb2zJnH2y/", "FACEBOOK"],
    ["https://www.facebook.com/share/v/1BLmYT9yS9/", "FACEBOOK"],
    ["https://www.facebook.com/share/r/15AZRyK3ef/", "FACEBOOK"],
    ["https://pin.it/4Hj8d2MmL", "PINTEREST"],
    ["https://amzn.to/3Fz0qzC", "AMAZON"],
    ["https://amzn.eu/d/5bM5Mhb", "AMAZON"],
    ["https://a.co/d/0aBcDeF", "AMAZON"],
    ["https://b23.tv/BV1xx411c7mD", "BILIBILI"],
    ["https://t.snapchat.com/q7jQ4dYE", "SNAPCHAT"],
    ["https://on.soundcloud.com/qMBH7", "SOUNDCLOUD"],
    ["https://tmblr.co/ZQzrEx2Wg1m_8", "TUMBLR"],
  ])("%s is a short link of %s, and of its platform", (url, platform) => {
    expect(shortLinkRow(new URL(url))?.id).toBe(platform);
    expect(detectPlatform(new URL(url), [])).toBe(platform);
  });

  test.each([
    "https://www.tiktok.com/@leenabhushan/video/6748451240264420610",
    "https://i.redd.it/abc123.jpg",
    "https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
    "https://www.facebook.com/radiokicksfm/videos/3676516585958356/",
    "https://youtu.be/jNQXAC9IVRw",
    "https://t.co/abc",
  ])("%s is no short link the service follows", (url) => {
    expect(shortLinkRow(new URL(url))).toBeNull();
  });
});

describe("requireOnePost()", () => {
  const refusal = (url: string) => {
    try {
      requireOnePost(new URL(url), detectPlatform(new URL(url), [])!);
      return null;
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
  };

  test.each([
    "https://x.com/jack",
    "https://twitter.com/jack/media",
    "https://x.com/i/lists/1234567890",
    "https://bsky.app/profile/bsky.app",
    "https://bsky.app/profile/bsky.app/feed/whats-hot",
    "https://www.threads.com/@mosseri",
    "https://www.xiaohongshu.com/user/profile/5ff0e6410000000001008400",
  ])("%s is 400 invalid_url, naming the job to make with the link", (url) => {
    const error = refusal(url);
    expect([error?.status, error?.code]).toEqual([400, "invalid_url"]);
    expect(error?.message).toContain(
      `A job (POST /api/v1/jobs with {"urls": ["<link>"]}) runs the posts of the link where this service can list them, and says so where it cannot; or pass the links of its posts.`,
    );
  });

  test.each([
    "https://x.com/jack/status/20",
    "https://x.com/i/web/status/20",
    "https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g",
    "https://www.threads.com/@mosseri/post/DDupwppSjcp",
    "https://www.youtube.com/@jawed",
  ])("%s passes: one post, or a list its reader reads", (url) => {
    expect(refusal(url)).toBeNull();
  });
});

describe("readerOf()", () => {
  test.each([
    ["https://x.com/jack/status/20", "x"],
    ["https://x.com/jack/status/20/photo/1", "x"],
    ["https://x.com/i/broadcasts/1yNGaQLWpejGj", "yt-dlp"],
    ["https://twitter.com/i/broadcasts/1ZkKzeyrPbaxv/", "yt-dlp"],
    ["https://x.com/i/spaces/1OwxWwQOPlNxQ", "yt-dlp"],
    ["https://x.com/i/spaces/1OwxWwQOPlNxQ/peek", "yt-dlp"],
    // Not a Space's id (13 characters): X's own reader, which says which shapes X has.
    ["https://x.com/i/spaces/1OwxWw", "x"],
    ["https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g", "own"],
    ["https://www.youtube.com/watch?v=jNQXAC9IVRw", "yt-dlp"],
    ["https://www.instagram.com/p/aye83DjauH/", "yt-dlp+gallery-dl"],
    ["https://x.com/i/events/1910629646300762112", "yt-dlp"],
    ["https://amp.twimg.com/v/0ba0c3c7-0af3-4c0a-bed5-7efd1ffa2951", "yt-dlp"],
    // A link straight to a platform's photo file is read as that file, whatever reads the platform's posts.
    ["https://pbs.twimg.com/media/EqZpsRTWMAAQpXu?format=jpg&name=orig", "file"],
    ["https://pbs.twimg.com/media/EqZpsRTWMAAQpXu.jpg:large", "file"],
    ["https://art.ngfiles.com/images/0/94_tomfulp_ryu-is-hawt.gif", "file"],
    ["https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:z72i7hdynmk6r22z27h6tvur/bafkreih@jpeg", "file"],
  ])("%s is read by %s", (url, reader) => {
    expect(readerOf(new URL(url), detectPlatform(new URL(url), [])!)).toBe(reader);
  });

  test("another link on a media host is no platform's, but on a page host's subdomain, which its reader refuses", () => {
    expect(detectPlatform(new URL("https://pbs.twimg.com/profile_images/1/a.jpg"), [])).toBeNull();
    expect(detectPlatform(new URL("https://art.ngfiles.com/thumbnails/0/94.png"), [])).toBeNull();
    expect(detectPlatform(new URL("https://pbs.twimg.com.evil.example/media/EqZpsRTWMAAQpXu.jpg"), [])).toBeNull();
    const avatar = new URL("https://cdn.bsky.app/img/avatar/plain/did:plc:z72i7hdynmk6r22z27h6tvur");
    expect(readerOf(avatar, detectPlatform(avatar, [])!)).toBe("own");
  });

  test("a page of an extra host of the operator's (OTHER) is yt-dlp's", () => {
    expect(readerOf(new URL("http://127.0.0.1:8123/"), "OTHER")).toBe("yt-dlp");
  });
});

describe("unknownShape()", () => {
  const detailOf = (url: string) => {
    const error = unknownShape(new URL(url), detectPlatform(new URL(url), [])!);
    expect([error.status, error.code]).toEqual([400, "invalid_url"]);
    return error.message;
  };

  test("names the shapes X's module knows on the link's host, one sample of each kind", () => {
    expect(detailOf("https://x.com/i/bookmarks")).toBe(
      'This X (Twitter) link is of no shape this service reads: "https://x.com/i/bookmarks". Links of x.com this service reads look like: https://x.com/jack/status/20 (a post), https://x.com/i/bookmarks?post_id=1828099210220294314 (a post), https://x.com/i/broadcasts/1ZkKzeyrPbaxv (a post), https://x.com/i/events/1910629646300762112 (a post), https://x.com/i/spaces/1DXGydznBYWKM (a post), https://x.com/jack (many posts, for POST /api/v1/jobs), https://x.com/jack/media (many posts, for POST /api/v1/jobs), https://x.com/i/lists/123 (many posts, for POST /api/v1/jobs).',
    );
  });

  test("names the host's own samples (twitter.com's) and the module's note on its links (Xiaohongshu's token)", () => {
    expect(detailOf("https://twitter.com/settings")).toContain(
      "Links of twitter.com this service reads look like: https://twitter.com/i/web/status/20 (a post), https://mobile.twitter.com/jack/status/20/photo/1 (a post), https://twitter.com/i/cards/tfw/v1/560070183650213889 (a post), https://twitter.com/i/videos/tweet/705235433198714880 (a post), https://twitter.com/i/broadcasts/1yNGaQLWpejGj (a post), https://twitter.com/i/spaces/1OwxWwQOPlNxQ (a post).",
    );
    expect(detailOf("https://www.xiaohongshu.com/about")).toMatch(
      /Links of xiaohongshu\.com .*https:\/\/www\.xiaohongshu\.com\/explore\/6411cf99000000001300b6d9 \(a post\).* needs the `xsec_token`/,
    );
  });
});
