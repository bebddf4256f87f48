// Page descriptions are extracted once: equal look-ups share a run, and a download right after a
// post picks its formats from the kept description without running yt-dlp again.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mainEntry } from "../../../../src/platforms/tools/ytdlp/info.ts";
import { createPageClient } from "../../../../src/platforms/tools/ytdlp/client.ts";
import { createCliExtractor } from "../../../../src/processes/extractor.ts";
import { nodeProcesses } from "../../../../src/runtime/node/processes.ts";
import { nodeFiles } from "../../../../src/runtime/node/files.ts";
import { type MediaSite, startMediaSite } from "../../../fakes/media-site.ts";
import { scaled } from "../../../helpers/slowness.ts";

// Each yt-dlp run is a new Python process that imports every extractor: on a busy CI machine it
// can take many seconds, so the caps are wide; no test waits for them.
describe("createPageClient()", { timeout: scaled(180_000) }, () => {
  let site: MediaSite;
  beforeAll(async () => {
    site = await startMediaSite();
  });
  afterAll(() => site.close());

  const pageFetches = (path: string) => site.requestLog.filter((request) => request.path === path).length;
  const source = (cacheTtlMs: number, maxItems = 5) => {
    let children = 0;
    const pages = createPageClient({
      extractor: createCliExtractor(nodeProcesses, { "yt-dlp": "yt-dlp", "gallery-dl": "gallery-dl" }),
      files: nodeFiles,
      timeoutMs: 90_000,
      socketTimeoutSec: 5,
      cacheTtlMs,
      cacheMaxEntries: 10,
      maxItems,
      onChild: () => {
        children += 1;
        return () => {};
      },
    });
    return { pages, children: () => children };
  };

  test("equal look-ups at once run yt-dlp once, and a later select picks from the description in-process", async () => {
    const { pages, children } = source(60_000);
    const page = new URL(site.pages.split);
    const [a, b, c] = await Promise.all([pages.info(page), pages.info(page), pages.info(page)]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(children()).toBe(1);
    expect(pageFetches("/split.html")).toBe(1);

    const chosen = await pages.select(page, "bv*+ba/b");
    expect(children()).toBe(1);
    expect(pageFetches("/split.html")).toBe(1);
    expect(chosen.info).toBe(a);
    expect(chosen.formats.map((f) => [f.vcodec === "none", f.acodec === "none"])).toEqual([[false, true], [
      true,
      false,
    ]]);
  });

  test("a selector beyond the in-process grammar is applied by yt-dlp to the kept description", async () => {
    const { pages, children } = source(60_000);
    const page = new URL(site.pages.split);
    const before = pageFetches("/split.html");
    const inProcess = await pages.select(page, "bv*+ba/b");
    const byYtdlp = await pages.select(page, "(bv*+ba/b)");
    expect(children()).toBe(2);
    expect(pageFetches("/split.html") - before).toBe(1);
    expect(byYtdlp.formats.map((f) => f.format_id)).toEqual(inProcess.formats.map((f) => f.format_id));
    expect(mainEntry(byYtdlp.info).requested_formats?.length).toBe(2);
  });

  test("without a kept description, a selector only yt-dlp knows costs one yt-dlp run", async () => {
    const { pages, children } = source(0);
    const chosen = await pages.select(new URL(site.pages.split), "(bv*+ba/b)");
    expect(children()).toBe(1);
    expect(chosen.formats).toHaveLength(2);
  });

  test("a description lists every item; select picks formats for the item asked, from the kept description", async () => {
    const { pages, children } = source(60_000);
    const page = new URL(site.pages.twoVideos);
    expect((await pages.info(page)).entries).toHaveLength(2);
    const second = await pages.select(page, "b", undefined, 2);
    expect(mainEntry(second.info).url).toBe(`${site.origin}/media/short.mp4`);
    expect(second.formats.map((format) => format.url)).toEqual([`${site.origin}/media/short.mp4`]);
    // Picked in-process from the kept description: no second yt-dlp run.
    expect(children()).toBe(1);
    expect(pageFetches("/two-videos.html")).toBe(1);
  });

  test("describes no more items than maxItems (PLAYLIST_MAX_ITEMS)", async () => {
    const { pages } = source(0, 1);
    expect((await pages.info(new URL(site.pages.twoVideos))).entries?.map((entry) => entry?.url)).toEqual([
      site.mp4Url,
    ]);
  });

  test("a download's run for one item of a playlist is not kept as the post's description", async () => {
    const { pages, children } = source(60_000);
    const page = new URL(`${site.pages.twoVideos}?fresh`);
    // A selector only yt-dlp knows, with nothing kept: one run for the item alone.
    expect(mainEntry((await pages.select(page, "(b)", undefined, 2)).info).url).toBe(`${site.origin}/media/short.mp4`);
    expect((await pages.info(page)).entries).toHaveLength(2);
    expect(children()).toBe(2);
  });

  test("without a cache every call extracts again", async () => {
    const { pages, children } = source(0);
    const page = new URL(site.pages.progressive);
    const before = pageFetches("/progressive.html");
    await pages.info(page);
    const chosen = await pages.select(page, "b");
    expect(chosen.formats).toHaveLength(1);
    expect(children()).toBe(2);
    expect(pageFetches("/progressive.html") - before).toBe(2);
  });
});
