// Threads' links, its page's data blocks and its post record, pure: the recorded page data of a
// photo post (test/fixtures/upstream/threads) and the link shapes public readers accept.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ApiError } from "../../../src/http/problem.ts";
import { PostRecord } from "../../../src/platforms/records.ts";
import { relayResultsOf } from "../../../src/platforms/threads/page.ts";
import { threadsPost } from "../../../src/platforms/threads/post.ts";
import { postOf, postPage } from "../../../src/platforms/threads/url.ts";
import { cookiesOf, csrfTokenOf, lsdOf, postIdOf } from "../../../src/platforms/threads/query.ts";

const recorded = readFileSync(
  "test/fixtures/upstream/threads/relay_BarcelonaPostPageDirectQuery_photo_self-reply_replies_DXO2PlPEoOQ.json",
  "utf8",
);
const block = (json: string) =>
  `<script type="application/json"  data-content-len="${json.length}" data-sjs>${json}</script>\n`;
const pageOf = (...blocks: string[]) => `<!DOCTYPE html><html><body>${blocks.map(block).join("")}</body></html>`;
const decoy = JSON.stringify({
  require: [["BarcelonaPostPageDirectQuery$Parameters", { __bbox: { result: { data: {} } } }]],
});

function failure(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("Threads links", () => {
  test.each([
    ["https://www.threads.com/@mosseri/post/DDupwppSjcp", "mosseri", "DDupwppSjcp"],
    ["https://threads.net/@mds/post/DObJvDoDkQI?xmt=AQF0", "mds", "DObJvDoDkQI"],
    ["https://www.threads.com/@threads/post/C04KN6fODek/media", "threads", "C04KN6fODek"],
    ["https://www.threads.net/t/CzecNnZPaxr/", "_", "CzecNnZPaxr"],
    ["https://www.threads.com/_/post/DXO2PlPEoOQ", "_", "DXO2PlPEoOQ"],
  ])("%s names post %s/%s", (link, user, code) => {
    expect(postOf(new URL(link))).toEqual({ user, code });
    expect(postPage({ user, code }).href).toBe(`https://www.threads.com/@${user}/post/${code}`);
  });

  test.each([
    "https://www.threads.com/@mosseri",
    "https://www.threads.com/@mosseri/post/",
    "https://www.threads.com/@mosseri/post/a/b",
    "https://www.threads.com.evil.example/@a/post/DDupwppSjcp",
  ])("%s names no post", (link) => {
    expect(postOf(new URL(link))).toBeNull();
  });
});

describe("a Threads post page's data", () => {
  test("finds the preloaded results in the data blocks, past decoys and other scripts", () => {
    const html = `<script>var x = "BarcelonaPostPage";</script>${pageOf(decoy, recorded)}`;
    const results = relayResultsOf(html);
    expect(results).toHaveLength(2);
    expect(results[1]).toMatchObject({ data: { data: { edges: expect.any(Array) } } });
  });

  test("the recorded photo post: its words, author and photo at full size", () => {
    const record = PostRecord.parse(threadsPost(relayResultsOf(pageOf(recorded)), { user: "_", code: "DXO2PlPEoOQ" }));
    expect(record).toMatchObject({
      platform: "THREADS",
      id: "DXO2PlPEoOQ",
      url: "https://www.threads.com/@kanisleo328/post/DXO2PlPEoOQ",
      authorName: "黃志弘｜Leo huang",
      needsServerProcessing: false,
      videoVariants: [],
    });
    expect(record.text).toMatch(/^Opus 4\.7 發佈第二天\n/);
    expect(record.media).toEqual([expect.objectContaining({ type: "photo", width: 1080, height: 1350 })]);
    expect(record.media[0]!.url).toMatch(
      /^https:\/\/instagram\.ftpe7-1\.fna\.fbcdn\.net\/v\/t51\.82787-15\/671157242_/,
    );
    expect(record.imageUrls).toEqual([record.media[0]!.url]);
  });

  test("a reply in the same answer is found by its code: text only, no media", () => {
    const record = threadsPost(relayResultsOf(pageOf(recorded)), { user: "_", code: "DXO2RmZEsQm" });
    expect([record.authorName, record.media, record.text === null]).toEqual(["黃志弘｜Leo huang", [], false]);
  });

  test("a code the page does not hold is 404; a page of decoys alone holds no post", () => {
    const error = failure(() => threadsPost(relayResultsOf(pageOf(recorded)), { user: "_", code: "XXXXXXXXXXX" }));
    expect([error.status, error.code]).toEqual([404, "not_found"]);
    expect(failure(() => threadsPost(relayResultsOf(pageOf(decoy)), { user: "_", code: "DXO2PlPEoOQ" })).status).toBe(
      404,
    );
  });
});

describe("the post's query", () => {
  test("the post id is the shortcode read as base 64, as the recording's pk says", () => {
    expect(postIdOf("DXO2PlPEoOQ")).toBe("3877274894497645456");
  });

  test("the page's LSD token, and the cookie header and CSRF token of its Set-Cookies", () => {
    expect(lsdOf('m.handleDefines([["LSD",[],{"token":"AVp-x_1"},323]])')).toBe("AVp-x_1");
    expect(lsdOf("<html></html>")).toBeNull();
    const cookie = cookiesOf(["csrftoken=abc; path=/; secure", "mid=m1; httponly", "broken"]);
    expect(cookie).toBe("csrftoken=abc; mid=m1");
    expect(csrfTokenOf(cookie)).toBe("abc");
  });
});
