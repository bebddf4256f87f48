// Issue 28: a page-mode download is whole or visibly broken, and it ends. Real yt-dlp and ffmpeg
// against sources that break in the ways real ones do; for each, MP4 and MP3, the caller gets a
// whole file that decodes without an error, a 502 problem+json before the head, or a broken
// transfer, within the idle cut plus a few seconds: never a clean end of a corrupt body.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer } from "../../src/runtime/serve.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { toolsLeft } from "../helpers/media.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { type Transfer, transfer } from "../helpers/transfer.ts";
import { scaled, slowness } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

const run = promisify(execFile);
// Short, so that a stalled source ends its case in seconds; long enough that a busy machine's
// ffmpeg, slow to start and to make its first output, is not taken for a stalled source (a 504).
const idleCutS = Math.ceil(3 * slowness);
/** The idle cut plus a few seconds: how long any of these downloads may take to end. */
const endsWithinS = idleCutS + scaled(5_000) / 1000;

/** What `ffmpeg -v error` says when it decodes every frame of `bytes`: empty for a whole, clean file. */
async function decodeErrors(bytes: Buffer, dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  const { stderr } = await run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"]);
  return stderr;
}

describe("page mode with sources that break", () => {
  let store: TestStore;
  let site: MediaSite;
  let testApp: TestApp;
  let server: RunningServer;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    [store, site] = await Promise.all([openTestStore("pglite"), startMediaSite()]);
    testApp = buildTestApp(store.db, {
      env: { EXTRA_PAGE_HOSTS: site.host, DOWNLOAD_IDLE_TIMEOUT_S: String(idleCutS) },
    });
    server = await serveNode(testApp.app, { port: 0, hostname: "127.0.0.1" });
    key = (await makeKey(store.db, "GOLD")).plain;
    dir = await mkdtemp(path.join(tmpdir(), "integrity-"));
  }, scaled(60_000));
  afterAll(async () => {
    server?.cut();
    await server?.close();
    await Promise.all([store?.close(), site?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /**
   * The page is described first (yt-dlp's run, seconds on a busy machine, is kept for the
   * download), so that the time measured is the download's own.
   */
  async function download(page: string, output: string): Promise<Transfer> {
    expect((await testApp.get(`/api/v1/post?url=${encodeURIComponent(page)}`, key)).status).toBe(200);
    return transfer(
      `${server.address}/api/v1/download?url=${encodeURIComponent(page)}${output === "mp3" ? "&audio=mp3" : ""}`,
      key,
    );
  }

  /** Whatever else is true of the case: a whole clean file, a 502 before the head, or a broken transfer; in time; no tool left. */
  async function expectWholeOrVisiblyBroken(result: Transfer, name: string): Promise<void> {
    expect(result.seconds, name).toBeLessThan(endsWithinS);
    if (result.status === 200 && result.complete) expect(await decodeErrors(result.body, dir, name), name).toBe("");
    else if (result.status !== 200) {
      expect(result.status, name).toBe(502);
      expect(result.headers["content-type"], name).toBe("application/problem+json");
    }
    expect(await toolsLeft(site.host, 3000), name).toEqual([]);
  }

  for (const output of ["mp4", "mp3"]) {
    it(`${output}: an index at the end from a server without Range is 502 source_not_streamable before the head`, async () => {
      const result = await download(site.pages.tailIndexNoRange, output);
      await expectWholeOrVisiblyBroken(result, `tail-norange.${output}`);
      expect(result.status).toBe(502);
      const problem = JSON.parse(result.body.toString()) as { code: string; detail: string };
      expect(problem.code).toBe("source_not_streamable");
      expect(problem.detail).toContain("Retrying will not help");
    });

    it(`${output}: an index at the end from a server that honours Range gives the whole file`, async () => {
      const result = await download(site.pages.tailIndex, output);
      expect(result.status).toBe(200);
      expect(result.complete).toBe(true);
      await expectWholeOrVisiblyBroken(result, `tail.${output}`);
    });

    it(`${output}: a source that hangs up halfway and ignores Range ends as a broken transfer or a 502, not a loop`, async () => {
      const result = await download(site.pages.hangupNoRange, output);
      await expectWholeOrVisiblyBroken(result, `hangup-norange.${output}`);
      expect(result.status === 200 && result.complete).toBe(false);
    });

    it(`${output}: a source that hangs up halfway and honours Range gives the whole file`, async () => {
      const result = await download(site.pages.hangupRanged, output);
      expect(result.status).toBe(200);
      expect(result.complete).toBe(true);
      await expectWholeOrVisiblyBroken(result, `hangup-ranged.${output}`);
    });

    it(`${output}: a source that sends garbage after a valid start never ends cleanly`, async () => {
      const result = await download(site.pages.garbage, output);
      await expectWholeOrVisiblyBroken(result, `garbage.${output}`);
      expect(result.status === 200 && result.complete).toBe(false);
    });
  }

  it("logs each broken transfer's cause with its request id, and counts broken transfers by cause", async () => {
    const result = await download(site.pages.stalledMedia, "mp4");
    expect(result.status).toBe(200);
    expect(result.complete).toBe(false);
    const requestId = result.headers["x-request-id"];
    // The adapter says the body ended once the socket is closed.
    const ended = await until(
      "the body's end in the log",
      () =>
        testApp.logLines.map((line) => JSON.parse(line)).find((line) =>
          line.msg === "body ended" && line.requestId === requestId
        ),
    );
    expect(ended).toMatchObject({ level: "warn", ended: "cut by error", cause: "upstream_timeout" });
    const metrics = await (await fetch(`${server.address}/metrics`)).text();
    expect(metrics).toMatch(/^media_api_broken_transfers_total\{mode="page",cause="upstream_timeout"\} [1-9]\d*$/m);
  });

  it("logs a 502 before the head with its code and request id", async () => {
    const result = await download(site.pages.tailIndexNoRange, "mp4");
    expect(result.status).toBe(502);
    const requestId = result.headers["x-request-id"];
    const failure = testApp.logLines.map((line) => JSON.parse(line)).find((line) =>
      line.msg === "upstream failure" && line.requestId === requestId
    );
    expect(failure).toMatchObject({ code: "source_not_streamable" });
    expect(failure.cause).toContain("partial file");
  });
});
