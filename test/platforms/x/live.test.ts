// X's live broadcasts and Spaces: links of these shapes go to yt-dlp (X's module's `shapeReaders`), whose real
// twitter:broadcast and twitter:spaces extractors read the local fake of X's endpoints (test/fakes/x-live.ts) through
// the egress gate; a broadcast downloads as MP4 in page mode, a Space's recording as M4A or MP3.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clipSeconds, liveLinks, startXLive, type XLive } from "../../fakes/x-live.ts";
import { buildTestApp, makeKey, type TestApp } from "../../helpers/app.ts";
import { probeMedia } from "../../helpers/media.ts";
import { openTestStore, type TestStore } from "../../helpers/stores.ts";

let store: TestStore;
let live: XLive;
let app: TestApp;
let key: string;
beforeAll(async () => {
  [store, live] = await Promise.all([openTestStore("pglite"), startXLive()]);
  app = buildTestApp(store.db, { env: { ORIGIN_OVERRIDES: live.originOverrides, YTDLP_PATH: live.ytdlpPath } });
  key = (await makeKey(store.db, "PRO")).plain;
});
afterAll(async () => {
  await Promise.all([store?.close(), live?.close()]);
});

const post = (link: string) => app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);
const download = (link: string, query = "") => app.get(`/api/v1/download?url=${encodeURIComponent(link)}${query}`, key);

describe("a live broadcast", () => {
  test("post is its record, read by yt-dlp from X's broadcast API as a guest", async () => {
    const response = await post(liveLinks.broadcast);
    expect(response.status).toBe(200);
    const record = await response.json();
    expect(record).toMatchObject({
      platform: "X",
      id: "1yNGaQLWpejGj",
      url: liveLinks.broadcast,
      text: "Live from the test bench",
      authorName: "Andrea May Sahouri",
      // X's broadcast API says when it started and ended, not how long its recording is.
      durationSec: null,
      needsServerProcessing: true,
    });
    expect(record.media).toHaveLength(1);
    expect(record.media[0]).toMatchObject({ type: "video", width: 320, height: 240 });
    // The guest token was activated, then carried by both API calls.
    const calls = live.requestLog.filter((request) => request.host === "api.x.com");
    expect(calls.map(({ method, path }) => `${method} ${path}`)).toEqual(expect.arrayContaining([
      "POST /1.1/guest/activate.json",
      "GET /1.1/broadcasts/show.json",
      "GET /1.1/live_video_stream/status/28_1266954837617565696",
    ]));
    expect(calls.filter(({ path }) => path !== "/1.1/guest/activate.json").every((call) => call.guestToken !== null))
      .toBe(true);
  });

  test("download is its HLS video and sound remuxed to MP4 (page mode)", async () => {
    const response = await download(liveLinks.broadcast);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    expect(response.headers.get("content-disposition")).toContain("x_1yNGaQLWpejGj.mp4");
    const media = await probeMedia(new Uint8Array(await response.arrayBuffer()));
    expect(media.streams.sort()).toEqual(["aac", "h264"]);
    expect(media.duration).toBeCloseTo(clipSeconds, 0);
  });
});

describe("a Space", () => {
  test("post is its record: the recording as one item of sound alone", async () => {
    const response = await post(liveLinks.space);
    expect(response.status).toBe(200);
    const record = await response.json();
    expect(record).toMatchObject({
      platform: "X",
      id: "1OwxWwQOPlNxQ",
      url: liveLinks.space,
      text: "Everybody in: the future of EV charging",
      authorName: "Mary Barra",
    });
    expect(record.media).toHaveLength(1);
    expect(record.media[0].videoVariants.length).toBeGreaterThan(0);
    expect(record.media[0].videoVariants.every((variant: { qualityLabel: string }) => variant.qualityLabel === "audio"))
      .toBe(true);
    const graphql = live.requestLog.find(({ path }) => path.endsWith("/AudioSpaceById"));
    expect(graphql).toMatchObject({ host: "x.com", guestToken: expect.any(String) });
  });

  test.each([["m4a", "audio/mp4", "aac"], ["mp3", "audio/mpeg", "mp3"]])(
    "audio=%s is its recording's sound",
    async (audio, type, codec) => {
      const response = await download(liveLinks.space, `&audio=${audio}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(type);
      expect(response.headers.get("content-disposition")).toContain(`x_1OwxWwQOPlNxQ.${audio}`);
      const media = await probeMedia(new Uint8Array(await response.arrayBuffer()));
      expect(media.streams).toEqual([codec]);
      expect(media.duration).toBeCloseTo(clipSeconds, 0);
    },
  );

  test("a Space whose replay its host turned off has nothing to download", async () => {
    const response = await post(liveLinks.spaceWithoutReplay);
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe("no_media");
  });
});

describe("a link of X's hosts of no shape X's module knows", () => {
  test.each(["post", "download"])(
    "%s is 400 invalid_url naming the shapes it knows there, asking no one",
    async (op) => {
      const before = live.requestLog.length;
      const response = await app.get(`/api/v1/${op}?url=${encodeURIComponent("https://x.com/i/bookmarks")}`, key);
      expect(response.status).toBe(400);
      const problem = await response.json();
      expect(problem.code).toBe("invalid_url");
      expect(problem.detail).toContain(
        "Links of x.com this service reads look like: https://x.com/jack/status/20 (a post), https://x.com/i/bookmarks?post_id=1828099210220294314 (a post), https://x.com/i/broadcasts/1ZkKzeyrPbaxv (a post), https://x.com/i/events/1910629646300762112 (a post), https://x.com/i/spaces/1DXGydznBYWKM (a post)",
      );
      expect(live.requestLog.length).toBe(before);
    },
  );
});
