// Which links a job asks yt-dlp to list, as each platform's module says (`ytdlpPlaylist`): every
// sample of a playlist, channel or set yt-dlp claims is asked, no sample of one post is (a job of
// many posts runs yt-dlp once per post), and a link of a host outside the list is always asked.
import { describe, expect, it } from "vitest";
import { platformList } from "../../../../src/platforms/list.ts";
import { mayStandForMany } from "../../../../src/platforms/tools/ytdlp/expansion.ts";

const samples = platformList.flatMap((platform) =>
  platform.samples.map((sample) => ({ ...sample, platform: platform.id }))
);

describe("mayStandForMany", () => {
  it("asks yt-dlp of every collection sample it claims", () => {
    const collections = samples.filter(({ shape, claimedBy }) => shape === "collection" && claimedBy === "yt-dlp");
    expect(collections.length).toBeGreaterThanOrEqual(6);
    const notAsked = collections.filter(({ url, platform }) => !mayStandForMany({ url: new URL(url), platform }));
    expect(notAsked.map(({ url }) => url)).toEqual([]);
  });

  // A short link is followed to the post it stands for before a job asks anything of it.
  it("asks nothing of a post's own link", () => {
    const posts = samples.filter(({ shape }) => shape === "post" || shape === "photo");
    const asked = posts.filter(({ url, platform }) => mayStandForMany({ url: new URL(url), platform }));
    expect(asked.map(({ url }) => url)).toEqual([]);
  });

  it("asks of any link of an operator's extra host, or of a site an extractor claims", () => {
    expect(mayStandForMany({ url: new URL("https://videos.example.org/watch/1"), platform: "OTHER" })).toBe(true);
    expect(mayStandForMany({ url: new URL("https://peertube.example/w/abc"), platform: "PEERTUBE" as never })).toBe(
      true,
    );
  });
});
