// A missing yt-dlp or ffmpeg takes page mode down with a clear 503, and nothing else.
import { readFileSync } from "node:fs";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeStandsMs, probeTools, toolVersion, ytdlpAgeDays } from "../../src/processes/tools.ts";
import { type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { nodeToolRuns } from "../../src/runtime/node/tool-runs.ts";
import { buildTestApp, makeKey, TestClock } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";

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
    const { get, toolsProbed } = buildTestApp(store.db, {
      env: {
        YTDLP_PATH: "/nonexistent/yt-dlp",
        FFMPEG_PATH: "/nonexistent/ffmpeg",
        X_SYNDICATION_URL: x.syndicationUrl,
      },
    });
    await toolsProbed;
    const key = await makeKey(store.db, "PRO");

    const health = await get("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await get("/readyz");
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks["yt-dlp"]).toEqual({ ok: false, error: "/nonexistent/yt-dlp could not be run" });

    for (
      const path of ["/api/v1/post?url=https://www.youtube.com/watch?v=abc", "/api/v1/download?url=https://vimeo.com/1"]
    ) {
      const response = await get(path, key.plain);
      expect(response.status).toBe(503);
      const problem = await response.json();
      expect(problem.code).toBe("tool_missing");
      expect(problem.detail).toContain("/nonexistent/yt-dlp");
    }
    const mp3 = await get(
      `/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/a.mp4")}&audio=mp3`,
      key.plain,
    );
    expect(mp3.status).toBe(503);
    expect((await mp3.json()).detail).toContain("/nonexistent/ffmpeg");

    const tweet = await get(`/api/v1/post?url=${encodeURIComponent("https://x.com/jack/status/20")}`, key.plain);
    expect(tweet.status).toBe(200);
    expect((await tweet.json()).platform).toBe("X");
  });

  it("keeps why a tool could not be run", async () => {
    const tools = await probeTools(nodeToolRuns, {
      "yt-dlp": "/nonexistent/yt-dlp",
      "gallery-dl": "/nonexistent/gallery-dl",
      ffmpeg: "/bin/false",
    });
    expect(tools["yt-dlp"]).toMatchObject({ version: null, failure: expect.stringContaining("ENOENT") });
    expect(tools.ffmpeg).toMatchObject({ version: null, failure: expect.stringContaining("/bin/false") });
  });
});

describe("what the service runs", () => {
  let store: TestStore;
  let dir: string;
  beforeAll(async () => {
    store = await openTestStore("pglite");
    dir = await mkdtemp(path.join(tmpdir(), "tools-test-"));
  });
  afterAll(async () => {
    await Promise.all([store.close(), rm(dir, { recursive: true, force: true })]);
  });

  /** A yt-dlp that answers `--version` after `delaySec` and fails every extraction as an unsupported URL. */
  async function fakeYtdlp(version: string, delaySec = 0): Promise<string> {
    const file = path.join(dir, `yt-dlp-${version}-${delaySec}`);
    const script =
      `#!/bin/sh\nif [ "$1" = --version ]; then sleep ${delaySec}; echo ${version}; exit 0; fi\necho "ERROR: Unsupported URL: x" >&2\nexit 1\n`;
    await writeFile(file, script, { mode: 0o755 });
    return file;
  }

  it("/readyz warns about a yt-dlp older than 90 days and stays ready; /metrics names each tool's version", async () => {
    const clock = new TestClock(new Date("2026-11-23T00:00:00Z"));
    const { get, toolsProbed } = buildTestApp(store.db, { clock, env: { YTDLP_PATH: await fakeYtdlp("2026.05.01") } });
    // The condition /readyz reports on; asked before it ends, /readyz would race its own bound.
    await toolsProbed;
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    const check = (await ready.json()).checks["yt-dlp"];
    expect(check.ok).toBe(true);
    expect(check.warning).toMatch(/^yt-dlp 2026\.05\.01 is 206 days old: .*--update-tools/);

    // Known once the probe is done.
    const metrics = await (await get("/metrics")).text();
    expect(metrics).toContain('media_api_tool_info{tool="yt-dlp",version="2026.05.01"} 1');
    expect(metrics).toMatch(/media_api_tool_info\{tool="ffmpeg",version="\d[^"]*"\} 1/);
  });

  it("/readyz checks gallery-dl too and warns about one whose next minor release is over 90 days old; /metrics names its version", async () => {
    const clock = new TestClock(new Date("2026-11-23T00:00:00Z"));
    const galleryDl = path.join(dir, "gallery-dl-1.31.10");
    await writeFile(galleryDl, "#!/bin/sh\necho 1.31.10\n", { mode: 0o755 });
    const { get, toolsProbed } = buildTestApp(store.db, {
      clock,
      env: { YTDLP_PATH: await fakeYtdlp("2026.10.26"), GALLERY_DL_PATH: galleryDl },
    });
    await toolsProbed;
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks["gallery-dl"].warning).toMatch(
      /^gallery-dl 1\.31\.10 is at least 211 days old: .*--update-tools\) or point GALLERY_DL_PATH/,
    );
    expect(await (await get("/metrics")).text()).toContain(
      'media_api_tool_info{tool="gallery-dl",version="1.31.10"} 1',
    );

    const missing = buildTestApp(store.db, {
      env: { YTDLP_PATH: await fakeYtdlp("2026.10.26"), GALLERY_DL_PATH: "/nonexistent/gallery-dl" },
    });
    await missing.toolsProbed;
    const key = await makeKey(store.db, "PRO");
    expect((await (await missing.get("/readyz")).json()).checks["gallery-dl"]).toEqual({
      ok: false,
      error: "/nonexistent/gallery-dl could not be run",
    });
    const photo = await missing.get(
      `/api/v1/post?url=${encodeURIComponent("https://www.instagram.com/p/C9kQ2mXoR3a/")}`,
      key.plain,
    );
    expect(photo.status).toBe(503);
    expect((await photo.json()).detail).toContain("GALLERY_DL_PATH");
  });

  it("a page-mode request that comes while the tools are still being probed waits for the probe, and is not refused", async () => {
    const { get } = buildTestApp(store.db, { env: { YTDLP_PATH: await fakeYtdlp("2026.10.26", 0.5) } });
    const key = await makeKey(store.db, "PRO");
    const started = Date.now();
    const response = await get(`/api/v1/post?url=${encodeURIComponent("https://vimeo.com/1")}`, key.plain);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    // yt-dlp ran the extraction (and failed it): the probe had found it.
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe("unsupported_url");
  });

  it("a tool installed after start is looked for again after 30 s: page mode works without a restart", async () => {
    const later = path.join(dir, "yt-dlp-installed-later");
    const { get, clock, toolsProbed } = buildTestApp(store.db, { env: { YTDLP_PATH: later } });
    await toolsProbed;
    const key = await makeKey(store.db, "PRO");
    const post = () => get(`/api/v1/post?url=${encodeURIComponent("https://vimeo.com/1")}`, key.plain);
    expect((await (await post()).json()).code).toBe("tool_missing");

    await rename(await fakeYtdlp("2026.11.20"), later);
    // The answer stands for its half minute: no new probe per request.
    expect((await (await post()).json()).code).toBe("tool_missing");
    clock.advance(probeStandsMs.missing);
    // yt-dlp ran the extraction (and failed it as its stand-in does): it was found.
    const found = await post();
    expect(found.status).toBe(400);
    expect((await found.json()).code).toBe("unsupported_url");
    expect((await (await get("/readyz")).json()).checks["yt-dlp"]).toEqual({ ok: true });
    expect(await (await get("/metrics")).text()).toContain('media_api_tool_info{tool="yt-dlp",version="2026.11.20"} 1');
  });

  it("an updated tool's version is read again after 10 minutes, while the old answer serves meanwhile", async () => {
    const clock = new TestClock(new Date("2026-11-23T00:00:00Z"));
    const updated = path.join(dir, "yt-dlp-updated-later");
    await rename(await fakeYtdlp("2026.05.01"), updated);
    const { get, toolsProbed } = buildTestApp(store.db, { clock, env: { YTDLP_PATH: updated } });
    await toolsProbed;
    const warning = async () => (await (await get("/readyz")).json()).checks["yt-dlp"].warning as string | undefined;
    expect(await warning()).toMatch(/^yt-dlp 2026\.05\.01 is 206 days old/);

    await rename(await fakeYtdlp("2026.11.20"), updated);
    clock.advance(probeStandsMs.found - 1);
    expect(await warning()).toMatch(/^yt-dlp 2026\.05\.01/);
    clock.advance(1);
    // The first ask after the ten minutes starts the new probe and is answered from the old one.
    expect(await warning()).toMatch(/^yt-dlp 2026\.05\.01/);
    await until("the new version in /readyz", async () => (await warning()) === undefined);
    const metrics = await (await get("/metrics")).text();
    expect(metrics).toContain('media_api_tool_info{tool="yt-dlp",version="2026.11.20"} 1');
    expect(metrics).toContain('media_api_tool_info{tool="yt-dlp",version="2026.05.01"} 0');
  });

  it("a yt-dlp of the last 90 days gets no warning", async () => {
    const clock = new TestClock(new Date("2026-11-23T00:00:00Z"));
    const { get, toolsProbed } = buildTestApp(store.db, { clock, env: { YTDLP_PATH: await fakeYtdlp("2026.10.26") } });
    await toolsProbed;
    expect((await (await get("/readyz")).json()).checks["yt-dlp"]).toEqual({ ok: true });
  });
});

describe("a tool run on a busy event loop", () => {
  it("keeps the answer of a tool that ended before the loop heard of it, though its time has passed", async () => {
    const started = Date.now();
    const run = nodeToolRuns.run("/bin/sh", ["-c", "echo /usr/bin/answered"], 50);
    // The loop is held (as a busy start holds it) until the child has ended, unheard, and its time is past.
    const children = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").split(" ");
    const stat = (pid: string) => readFileSync(`/proc/${pid}/stat`, "utf8");
    // Found once it is the shell (before, it is a copy of this process), running or a zombie.
    let child: string | undefined;
    while (child === undefined) child = children().find((pid) => pid !== "" && stat(pid).includes(" (sh) "));
    while (!stat(child).includes(" (sh) Z") || Date.now() - started < 200);
    expect(await run).toEqual({ stdout: "/usr/bin/answered\n" });
  });

  it("still ends a tool that outlives its time, and fails it", async () => {
    const run = await nodeToolRuns.run("/bin/sh", ["-c", "exec sleep 30"], 100);
    expect(run).toMatchObject({ error: expect.objectContaining({ signal: "SIGTERM" }) });
  });
});

describe("ytdlpAgeDays()", () => {
  it("reads the release date of stable and nightly versions, and nothing else", () => {
    const now = new Date("2026-11-23T12:00:00Z");
    expect(ytdlpAgeDays("2026.10.26", now)).toBe(28);
    expect(ytdlpAgeDays("2026.11.20.232345", now)).toBe(3);
    expect(ytdlpAgeDays("2023.03.04", now)).toBe(1360);
    expect(ytdlpAgeDays("unknown", now)).toBeNull();
  });
});

describe("toolVersion()", () => {
  it("takes the bare version out of each tool's first line", () => {
    expect(
      toolVersion({
        path: "ffmpeg",
        version: "ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2025 the FFmpeg developers",
        failure: null,
      }),
    ).toBe("5.1.9-0+deb12u1");
    expect(toolVersion({ path: "yt-dlp", version: "2026.10.26", failure: null })).toBe("2026.10.26");
    expect(toolVersion({ path: "yt-dlp", version: null, failure: "not found" })).toBeNull();
  });
});
