// Issue 32, item 5, and issue 43, item 3: honest cuts, both ways, for every output. A file that comes out longer than its source, or from a
// source that loops, is a visible failure (a broken transfer or a 502, never a clean 200); an honest
// slow source with keyframes far apart, and valid HLS whose segments restart their continuity
// counters, give the whole file. Real yt-dlp and ffmpeg against the hostile site of test/fakes.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFfmpegLimits } from "../../src/media/ffmpeg.ts";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer } from "../../src/runtime/serve.ts";
import { hostileDurationSec, type HostileSite, startHostileSite } from "../fakes/hostile-media.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { type Transfer, transfer } from "../helpers/transfer.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);

describe("page mode's cuts against hostile sources", () => {
  let store: TestStore;
  let site: HostileSite;
  let testApp: TestApp;
  let server: RunningServer;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    [store, site] = await Promise.all([openTestStore("pglite"), startHostileSite()]);
    // A short idle cut, so that a cut of the slow source would come long before its fragments do;
    // a size cap that ends a looping download in seconds, should nothing else.
    testApp = buildTestApp(store.db, {
      env: { EXTRA_PAGE_HOSTS: site.host, DOWNLOAD_IDLE_TIMEOUT_S: "2", MAX_DOWNLOAD_BYTES: String(30 * 1024 * 1024) },
    });
    server = await serveNode(testApp.app, { port: 0, hostname: "127.0.0.1" });
    key = (await makeKey(store.db, "GOLD")).plain;
    dir = await mkdtemp(path.join(tmpdir(), "cuts-"));
  }, scaled(120_000));
  afterAll(async () => {
    server?.cut();
    await server?.close();
    await Promise.all([store?.close(), site?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function download(page: string, output: "mp4" | "mp3" | "m4a"): Promise<Transfer> {
    return transfer(
      `${server.address}/api/v1/download?url=${encodeURIComponent(page)}${output === "mp4" ? "" : `&audio=${output}`}`,
      key,
    );
  }

  /** A 200 whose body ended properly, of the source's length (by ffprobe), that decodes without an error. */
  async function expectWhole(result: Transfer, name: string): Promise<void> {
    expect(result.status).toBe(200);
    expect(result.complete).toBe(true);
    const file = path.join(dir, name);
    await writeFile(file, result.body);
    const probe = await run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]);
    expect(Math.abs(Number(probe.stdout.trim()) - hostileDurationSec)).toBeLessThan(1);
    expect((await run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"])).stderr).toBe("");
  }

  const visiblyFailed = (result: Transfer) => !(result.status === 200 && result.complete);

  for (const output of ["mp4", "mp3", "m4a"] as const) {
    it(`${output}: a source that hangs up once and answers the retry from its start is a visible failure, not a longer file`, async () => {
      site.armHangup();
      const result = await download(site.pages.hangupOnce, output);
      expect(visiblyFailed(result), `status ${result.status}, ${result.body.byteLength} bytes`).toBe(true);
    });
  }

  // With no length to hold the output against, only the timestamps tell the file started over: an
  // encode (MP3) numbers its own, and ffmpeg quietly shifts an MPEG-TS input whose time jumps back
  // unless told to keep it (M4A came out 30.8 s of 20 s).
  for (const output of ["mp4", "mp3", "m4a"] as const) {
    it(`${output}: the same source on a page that gives no length is a visible failure, not a longer file`, async () => {
      site.armHangup();
      const result = await download(site.pages.hangupOnceBare, output);
      expect(visiblyFailed(result), `status ${result.status}, ${result.body.byteLength} bytes`).toBe(true);
    });
  }

  it("m4a: the same page without the hang-up gives the whole sound", async () => {
    const result = await download(site.pages.hangupOnceBare, "m4a");
    expect(result.status).toBe(200);
    expect(result.complete).toBe(true);
    const file = path.join(dir, "whole.m4a");
    await writeFile(file, result.body);
    const probe = await run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]);
    expect(Math.abs(Number(probe.stdout.trim()) - hostileDurationSec)).toBeLessThan(1);
  });

  // A copy of AAC from MP4 reads frames by the index's sizes and never looks into them: what the
  // retry brought from the file's start was copied on as sound of the right length that did not play.
  it("m4a: an MP4 source that hangs up once and answers the retry from its start is a visible failure", async () => {
    site.armHangup();
    const result = await download(site.pages.hangupOnceMp4, "m4a");
    expect(visiblyFailed(result), `status ${result.status}, ${result.body.byteLength} bytes`).toBe(true);
  });

  it("m4a: the same MP4 source without the hang-up gives the whole sound, which plays", async () => {
    await expectWhole(await download(site.pages.hangupOnceMp4, "m4a"), "whole-of-mp4.m4a");
  });

  it("the same source without the hang-up gives the whole file, of its length", async () => {
    await expectWhole(await download(site.pages.hangupOnce, "mp4"), "whole.mp4");
  });

  for (const output of ["mp4", "mp3", "m4a"] as const) {
    it(`${output}: a source without Content-Length that sends its file again on every reconnect is cut at its first return`, async () => {
      const before = site.requests("/media/loop.ts");
      const result = await download(site.pages.loop, output);
      expect(visiblyFailed(result)).toBe(true);
      // The first read and the reconnect that brought the file again; the download's time does not
      // say it (the machine is busy), the reads do. Before, MP3 went on to the reconnect bound.
      expect(site.requests("/media/loop.ts") - before).toBeLessThanOrEqual(2);
      expect(defaultFfmpegLimits.maxReconnects).toBeGreaterThan(2);
    });
  }

  // Issue 43, item 6: no retry gives a silent video sound, so it is not "try again".
  for (const output of ["mp3", "m4a"] as const) {
    it(`${output} of a video without sound is 400 saying so`, async () => {
      const result = await download(site.pages.silent, output);
      expect(result.status, result.body.toString("utf8")).toBe(400);
      const problem = JSON.parse(result.body.toString("utf8"));
      expect(problem).toMatchObject({ code: "invalid_parameter", detail: expect.stringContaining("no sound") });
    });
  }

  it("an honest slow source whose fragments take longer than the idle cut to arrive gives the whole file", async () => {
    await expectWhole(await download(site.pages.slow, "mp4"), "slow.mp4");
  }, scaled(120_000));

  it("HLS of segments written one by one (continuity counters restart) gives the whole file, as plain ffmpeg reads it", async () => {
    await expectWhole(await download(site.pages.segments, "mp4"), "segments.mp4");
  });
});
