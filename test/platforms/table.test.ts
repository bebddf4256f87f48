import { describe, expect, test } from "vitest";
import { detectPlatform, supportedPlatformsText } from "../../src/platforms/table.ts";

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
