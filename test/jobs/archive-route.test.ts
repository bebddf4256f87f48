// A job's archive end to end, against the app with its queue on PGlite, a local page site and the
// local Bluesky: a job of two page links and a Bluesky thread completes; the signed link it then
// shows gives a ZIP that unzip -t finds whole, with files ffprobe plays and records.json in the
// job's order; nothing was written under DATA_DIR or the tools' TMPDIR. An item whose video is gone
// fails with its problem (its file was asked for its first byte) and the archive holds the others;
// a file that breaks off midway breaks the archive's transfer; another account's job is 404.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cardThread, type FakeBluesky, imagesThread, linkOf, startFakeBluesky } from "../fakes/bluesky.ts";
import { clipDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { makeKey, type TestApp } from "../helpers/app.ts";
import { completed, type JobService, startJobService } from "../helpers/job-service.ts";
import { probeMedia, snapshotFiles } from "../helpers/media.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);

interface JobAnswer {
  id: string;
  status: string;
  archiveUrl: string | null;
  items: { position: number; url: string; status: string; problem: { code: string } | null }[];
}

let site: MediaSite;
let bluesky: FakeBluesky;
let service: JobService;
let app: TestApp;
let key: string;

beforeAll(async () => {
  [site, bluesky] = await Promise.all([startMediaSite(), startFakeBluesky()]);
  service = await startJobService({
    EXTRA_PAGE_HOSTS: site.host,
    BLUESKY_APPVIEW_URL: bluesky.origin,
    ORIGIN_OVERRIDES: bluesky.originOverrides,
  }, { extractionHost: true });
  app = service.app;
  key = (await makeKey(service.store.db, "GOLD")).plain;
}, scaled(180_000));
afterAll(async () => {
  await service?.close();
  await Promise.all([site?.close(), bluesky?.close()]);
});

const call = (pathname: string, init: RequestInit = {}) =>
  app.get(pathname, key, { ...init, headers: { "content-type": "application/json", ...init.headers } });

/** Posts a job of `urls` with their files and waits for it to complete. */
async function completedJob(urls: string[]): Promise<JobAnswer> {
  const created = await call("/api/v1/jobs", { method: "POST", body: JSON.stringify({ urls, files: true }) });
  expect(created.status).toBe(202);
  const location = created.headers.get("location")!;
  const early = await call(`${location}/archive`);
  // Unless the job was quick enough to be done already, its archive is not there yet.
  if (early.status !== 200) expect(early.status).toBe(409);
  await early.body?.cancel();
  return service.jobWhen<JobAnswer>(key, location, completed, 120_000);
}

describe("GET /api/v1/jobs/{id}/archive", () => {
  test("a completed job's archive, by its signed link: whole, playable, in the job's order, and leaving no trace", {
    timeout: scaled(240_000),
  }, async () => {
    const thread = linkOf(cardThread.thread.post);
    const job = await completedJob([site.pages.progressive, site.pages.hls, thread]);
    expect(job.items.map((item) => item.status)).toEqual(Array(6).fill("done"));
    expect(job.archiveUrl).toMatch(new RegExp(`/api/v1/jobs/${job.id}/archive\\?.*sig=`));

    // The signed link works without the key, as a download's does.
    const answer = await app.app.fetch(new Request(job.archiveUrl!));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/zip");
    expect(answer.headers.get("content-disposition")).toContain(`job-${job.id}.zip`);
    const zip = path.join(service.scratch, "job.zip");
    writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));

    expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
    const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
    // The two clips, the thread's one image (its last post), records.json last.
    expect(names).toHaveLength(4);
    expect(names[0]).toMatch(/^0001-.+\.mp4$/);
    expect(names[1]).toMatch(/^0002-.+\.mp4$/);
    expect(names[2]).toBe("0006-bluesky_3kbi5dzaujr2n.jpg");
    expect(names[3]).toBe("records.json");
    const entry = async (name: string) =>
      (await run("unzip", ["-p", zip, name], { encoding: "buffer", maxBuffer: 64 * 2 ** 20 })).stdout;
    for (const clip of names.slice(0, 2)) {
      const probed = await probeMedia(await entry(clip));
      expect(probed.streams).toEqual(expect.arrayContaining(["h264", "aac"]));
      expect(probed.duration).toBeCloseTo(clipDurationSec, 0);
    }
    const records = JSON.parse((await entry("records.json")).toString());
    expect(records.items.map((item: { url: string }) => item.url)).toEqual(job.items.map((item) => item.url));
    expect(records.items.slice(2).map((item: { post: { id: string } }) => item.post.id)).toEqual([
      "3kbi55xm6u62v",
      "3kbi56mwx5j2q",
      "3kbi57u4sys2l",
      "3kbi5dzaujr2n",
    ]);

    // The store is elsewhere (in memory): the data folder stays empty, as the tools' temporary folder.
    const { tmp, dataDir } = service.untouched;
    expect(snapshotFiles([tmp, dataDir])).toEqual({ [tmp]: [], [dataDir]: [] });
  });

  test("an item whose page names a video that is gone fails with its problem, and the archive holds the others whole", {
    timeout: scaled(240_000),
  }, async () => {
    const job = await completedJob([site.pages.progressive, site.pages.goneMedia]);
    expect(job.items.map((item) => [item.status, item.problem?.code ?? null])).toEqual([
      ["done", null],
      ["failed", "not_found"],
    ]);
    const answer = await call(`/api/v1/jobs/${job.id}/archive`);
    expect(answer.status).toBe(200);
    const zip = path.join(service.scratch, "gone.zip");
    writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));
    expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
    const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^0001-.+\.mp4$/);
    const records = JSON.parse((await run("unzip", ["-p", zip, "records.json"])).stdout);
    expect(records.items[1]).toMatchObject({
      position: 2,
      status: "failed",
      files: [],
      problem: { code: "not_found" },
    });
  });

  test("a file that breaks off midway breaks the archive's transfer", { timeout: scaled(240_000) }, async () => {
    const job = await completedJob([site.pages.progressive, site.pages.truncatedMedia]);
    const answer = await call(`/api/v1/jobs/${job.id}/archive`);
    expect(answer.status).toBe(200);
    await expect(answer.arrayBuffer()).rejects.toThrow();
  });

  test("another account's job is 404, as one that never was", async () => {
    const job = await completedJob([site.pages.progressive]);
    const other = await makeKey(service.store.db, "GOLD");
    const answer = await app.get(`/api/v1/jobs/${job.id}/archive`, other.plain);
    expect(answer.status).toBe(404);
    expect((await answer.json()).code).toBe("not_found");
  }, scaled(240_000));

  test("HEAD gives the archive's headers and fetches no file; the OpenAPI document describes both", async () => {
    const job = await completedJob([site.pages.progressive]);
    const asked = site.requestLog.length;
    const answer = await app.get(`/api/v1/jobs/${job.id}/archive`, key, { method: "HEAD" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/zip");
    expect(answer.body).toBeNull();
    expect(site.requestLog.length).toBe(asked);
    const document = await (await app.get("/api/v1/openapi.json")).json();
    const archive = document.paths["/api/v1/jobs/{id}/archive"];
    expect(Object.keys(archive.get.responses)).toEqual(expect.arrayContaining(["200", "404", "409"]));
    expect(Object.keys(archive.get.responses[200].content)).toEqual(["application/zip"]);
    expect(archive.head.operationId).toBe("headGetJobArchive");
  }, scaled(240_000));

  test("a file whose slot the key's own download holds waits its turn, and the archive ends whole", {
    timeout: scaled(240_000),
  }, async () => {
    // A FREE key has one page-mode slot; its burst limit counts calls a minute, so the clock moves on.
    const free = await makeKey(service.store.db, "FREE");
    const freeCall = (pathname: string, init: RequestInit = {}) => {
      app.clock.advance(61_000);
      return app.get(pathname, free.plain, init);
    };
    const urls = [linkOf(imagesThread.thread.post), site.pages.progressive];
    const created = await freeCall("/api/v1/jobs", { method: "POST", body: JSON.stringify({ urls, files: true }) });
    const location = created.headers.get("location")!;
    await until("the job to complete", async () => {
      const job = (await (await freeCall(location)).json()) as JobAnswer;
      return job.status === "completed" ? job : undefined;
    }, 120_000);

    // The key's one page-mode slot, held by a download whose source stops sending halfway.
    const held = await freeCall(`/api/v1/download?url=${encodeURIComponent(site.pages.stalledMedia)}`);
    expect(held.status).toBe(200);
    const archive = (await freeCall(`${location}/archive`)).body!.getReader();
    const chunks: Uint8Array[] = [];
    let released = false;
    let endedBeforeRelease = false;
    const reading = (async () => {
      for (let next = await archive.read(); !next.done; next = await archive.read()) chunks.push(next.value);
      endedBeforeRelease = !released;
    })();
    // The image (a relay, another kind of slot) comes first; then the clip waits for the remux slot.
    await until("the image's bytes", () => chunks.reduce((sum, chunk) => sum + chunk.length, 0) > 20_000);
    released = true;
    await held.body!.cancel();
    await reading;
    expect(endedBeforeRelease).toBe(false);
    const zip = path.join(service.scratch, "waited.zip");
    writeFileSync(zip, Buffer.concat(chunks));
    expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
    expect((await run("unzip", ["-Z1", zip])).stdout.trim().split("\n")).toHaveLength(3);
  });
});
