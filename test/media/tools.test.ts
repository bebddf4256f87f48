// A missing yt-dlp or ffmpeg takes page mode down with a clear 503, and nothing else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeXUpstream, type FakeXUpstream } from "../fakes/x-upstream.ts";
import { probeTools } from "../../src/media/tools.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

describe("when the media tools are missing", () => {
  let store: TestStore;
  let x: FakeXUpstream;
  beforeAll(async () => {
    [store, x] = await Promise.all([openTestStore("pglite"), startFakeXUpstream()]);
  });
  afterAll(async () => {
    await Promise.all([store.close(), x.close()]);
  });

  it("says so in /healthz and /readyz, answers page mode with 503 tool_missing, and serves X as before", async () => {
    const { get } = buildTestApp(store.db, {
      env: { YTDLP_PATH: "/nonexistent/yt-dlp", FFMPEG_PATH: "/nonexistent/ffmpeg", X_SYNDICATION_URL: x.syndicationUrl },
    });
    const key = await makeKey(store.db, "PRO");

    const health = await get("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await get("/readyz");
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks["yt-dlp"]).toEqual({ ok: false, error: "/nonexistent/yt-dlp could not be run" });

    for (const path of ["/api/v1/post?url=https://www.youtube.com/watch?v=abc", "/api/v1/download?url=https://vimeo.com/1"]) {
      const response = await get(path, key.plain);
      expect(response.status).toBe(503);
      const problem = await response.json();
      expect(problem.code).toBe("tool_missing");
      expect(problem.detail).toContain("/nonexistent/yt-dlp");
    }
    const mp3 = await get(`/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/a.mp4")}&audio=mp3`, key.plain);
    expect(mp3.status).toBe(503);
    expect((await mp3.json()).detail).toContain("/nonexistent/ffmpeg");

    const tweet = await get(`/api/v1/post?url=${encodeURIComponent("https://x.com/jack/status/20")}`, key.plain);
    expect(tweet.status).toBe(200);
    expect((await tweet.json()).platform).toBe("X");
  });

  it("keeps why a tool could not be run", () => {
    const tools = probeTools({ "yt-dlp": "/nonexistent/yt-dlp", ffmpeg: "/bin/false" });
    expect(tools["yt-dlp"]).toMatchObject({ version: null, failure: expect.stringContaining("ENOENT") });
    expect(tools.ffmpeg).toMatchObject({ version: null, failure: expect.stringContaining("/bin/false") });
  });
});
