// Links people paste, as other projects' test suites hold them (test/fixtures/links/pasted-links.txt: yt-dlp's
// extractor tests and cobalt's service tests, PROVENANCE.md): at most 2 % of them are refused. A link is taken when
// it belongs to a platform of the table (on its hosts, a mirror's, a short link's or a media file's) and its reader
// takes its shape: a short link is followed, a link that stands for many posts goes to a job, a media file is read
// as that file, the service's own reader parses it, or an extractor of the installed tools claims it. Offline.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { canonicalLink, detectPlatform, readerOf, shortLinkRow, standsForMany } from "../../src/platforms/table.ts";
import { installedToolClaims } from "../helpers/claims.ts";
import { ownLinkParsers } from "../helpers/platform-samples.ts";
import { scaled } from "../helpers/slowness.ts";

const collection = readFileSync(new URL("../fixtures/links/pasted-links.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line !== "" && !line.startsWith("#"));

const claims = installedToolClaims();
afterAll(() => claims.close());

/** Why the service refuses a pasted link; null when it takes it. */
async function refusal(pasted: URL): Promise<string | null> {
  const link = canonicalLink(pasted);
  const platform = detectPlatform(link, []);
  if (platform === null) return "no platform";
  if (shortLinkRow(link) !== null || standsForMany(link, platform)) return null;
  const reader = readerOf(link, platform);
  if (reader === "file") return null;
  if (reader === "x" || reader === "own") {
    return (ownLinkParsers[platform]?.(link) ?? null) === null ? `${platform}: no shape` : null;
  }
  const claim = await claims.claimOf(link);
  return claim.ytdlp === null && claim.gallerydl === null ? `${platform}: no extractor` : null;
}

describe("links people paste", () => {
  test("the collection holds at least 300 real links of the platforms", () => {
    expect(collection.length).toBeGreaterThanOrEqual(300);
  });

  // One link of each kind issue 58 found refused; the platform modules hold samples of each (rows.test.ts).
  test.each([
    "https://www.tiktokv.com/share/video/7668090902816017671/",
    "https://m.tiktok.com/v/6748451240264420610.html",
    "https://v.redd.it/ifg2emt5ck0e1",
    "https://www.redditmedia.com/r/serbia/comments/pu9wbx/x/",
    "https://a.co/d/2bCdEfG",
    "https://vimeopro.com/openstreetmapus/state-of-the-map-us-2013/video/68093876",
    "https://bskye.app/profile/bsky.app/post/3l3vgf77uco2g",
    "https://twitter.com/i/cards/tfw/v1/560070183650213889",
    "https://x.com/i/bookmarks?post_id=1828099210220294314",
    "http://xhslink.cn/m/1gJ5tOG6M1b",
    "http://xhslink.com/ErpbmK",
    "https://pbs.twimg.com/media/EqZpsRTWMAAQpXu?format=jpg&name=orig",
    "https://art.ngfiles.com/images/0/94_tomfulp_ryu-is-hawt.gif",
  ])("%s is taken", async (url) => {
    expect(await refusal(new URL(url))).toBeNull();
  });

  test("at most 2 % are refused", async () => {
    const refused: string[] = [];
    for (const url of collection) {
      const why = await refusal(new URL(url));
      if (why !== null) refused.push(`${why}: ${url}`);
    }
    // docs/api.md says the figure: 4 of 816 (0.5 %), Loom's share links with a title before the id and Rutube's
    // shorts and Yappy links, which no extractor of the installed tools reads.
    expect(refused.length, refused.join("\n")).toBeLessThanOrEqual(Math.floor(collection.length * 0.02));
  }, scaled(120_000));
});
