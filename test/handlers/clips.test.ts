// Clips (`start`, `end`) through the whole app: a page-mode video, a relayed X video (its CDN file
// cut by ffmpeg) and a job's items come out as the part asked for, cut at the key frame at or
// before `start` (the long video has one a second), with what was sent in `Clip-Start` and
// `Clip-Duration`, and they decode. Each bad bound is a 400 naming its parameter.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { longDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { fakeTweetIds, type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { makeKey } from "../helpers/app.ts";
import { completed, type JobService, startJobService } from "../helpers/job-service.ts";
import { probeMedia } from "../helpers/media.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);
/** The key frames of the long video are this far apart: a key-frame cut starts at most this much early. */
const keyFrameIntervalSec = 1;
const nasaVideoPost = "https://x.com/NASA/status/1491475671058681863";

/** Whether ffmpeg decodes every frame of the bytes without a word of error. */
async function decodes(bytes: Uint8Array): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "clips-decode-"));
  try {
    const file = path.join(dir, "clip.mp4");
    writeFileSync(file, bytes);
    const { stderr } = await run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"]);
    return stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A 10-second clip from 5.5 s: it starts at the key frame at 5 s, and its headers and its file say so. */
async function expectTenSecondClip(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("video/mp4");
  const start = Number(response.headers.get("clip-start"));
  const length = Number(response.headers.get("clip-duration"));
  expect(start).toBeLessThanOrEqual(5.5);
  expect(start).toBeGreaterThan(5.5 - keyFrameIntervalSec - 0.01);
  expect(length).toBeCloseTo(15.5 - start, 3);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const media = await probeMedia(bytes);
  expect(media.streams).toEqual(["h264", "aac"]);
  expect(media.duration).toBeGreaterThanOrEqual(10 - 0.1);
  expect(media.duration).toBeLessThanOrEqual(10 + keyFrameIntervalSec + 0.1);
  expect(Math.abs(media.duration - length)).toBeLessThan(0.15);
  expect(await decodes(bytes)).toBe("");
}

describe("clips", () => {
  let site: MediaSite;
  let x: FakeXUpstream;
  let cdn: FakeCdn;
  let service: JobService;
  let key: string;

  beforeAll(async () => {
    [site, x, cdn] = await Promise.all([startMediaSite({ long: true }), startFakeXUpstream(), startFakeCdn()]);
    service = await startJobService({
      EXTRA_PAGE_HOSTS: site.host,
      X_SYNDICATION_URL: x.syndicationUrl,
      // X's video CDN is the page site, which serves the long video for every recorded post's MP4; its photos the CDN's.
      ORIGIN_OVERRIDES: `video.twimg.com=${site.origin},pbs.twimg.com=${cdn.origin}`,
    });
    key = (await makeKey(service.store.db, "GOLD")).plain;
  }, scaled(180_000));
  afterAll(async () => {
    await service?.close();
    await Promise.all([site?.close(), x?.close(), cdn?.close()]);
  });

  const download = (url: string, query: string) =>
    service.app.get(`/api/v1/download?url=${encodeURIComponent(url)}${query}`, key);

  test("a page-mode video's 10 seconds from 5.5 s", { timeout: scaled(60_000) }, async () => {
    await expectTenSecondClip(await download(site.pages.long, "&start=5.5&end=0:15.5"));
  });

  test(
    "a relayed X video's 10 seconds: its CDN file becomes a remux when cut",
    { timeout: scaled(60_000) },
    async () => {
      await expectTenSecondClip(await download(nasaVideoPost, "&start=00:05.5&end=15.5"));
    },
  );

  test("a job's items are each that part of their video, in the archive", { timeout: scaled(180_000) }, async () => {
    const created = await service.app.post("/api/v1/jobs", key, {
      urls: [site.pages.long, nasaVideoPost],
      files: true,
      start: 5.5,
      end: "15.5",
    });
    expect(created.status).toBe(202);
    const job = await service.jobWhen<{ status: string; archiveUrl: string; request: unknown }>(
      key,
      created.headers.get("location")!,
      completed,
      150_000,
    );
    expect(job.request).toMatchObject({ start: 5.5, end: 15.5 });
    // Each item's signed links carry the range, as `download` takes it.
    const items = (await (await service.app.get(created.headers.get("location")!, key)).json()) as {
      items: { post: { downloadUrl: string } }[];
    };
    for (const item of items.items) {
      expect(new URL(item.post.downloadUrl).searchParams.get("start")).toBe("5.5");
      expect(new URL(item.post.downloadUrl).searchParams.get("end")).toBe("15.5");
    }
    const zip = path.join(service.scratch, "clips.zip");
    // The signed link, asked of the app in-process: it speaks for the key by itself.
    const archive = new URL(job.archiveUrl);
    const answer = await service.app.get(`${archive.pathname}${archive.search}`);
    expect(answer.status).toBe(200);
    writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));
    const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n").filter((name) => name.endsWith(".mp4"));
    expect(names).toHaveLength(2);
    for (const name of names) {
      const bytes = (await run("unzip", ["-p", zip, name], { encoding: "buffer", maxBuffer: 64 * 2 ** 20 })).stdout;
      const media = await probeMedia(new Uint8Array(bytes));
      expect(media.duration).toBeGreaterThanOrEqual(10 - 0.1);
      expect(media.duration).toBeLessThanOrEqual(10 + keyFrameIntervalSec + 0.1);
      expect(await decodes(new Uint8Array(bytes))).toBe("");
    }
  });

  test.each([
    ["`end` before `start`", (site_) => site_.pages.long, "&start=20&end=10", /`end`.*after `start`/],
    ["a malformed time", (site_) => site_.pages.long, "&start=1:2:3:4", /`start` must be seconds/],
    ["a malformed `end`", (site_) => site_.pages.long, "&end=ten", /`end` must be seconds/],
    [
      "`start` past the media's length",
      (site_) => site_.pages.long,
      `&start=${longDurationSec + 5}`,
      /`start` is past/,
    ],
    [
      "`end` past the media's length",
      (site_) => site_.pages.long,
      `&end=${longDurationSec + 5}`,
      /`end`.*past the media/,
    ],
    ["an exact cut this instance does not allow", (site_) => site_.pages.long, "&start=5&cut=exact", /`cut=exact`/],
    [
      "a clip of a photo",
      () => `https://x.com/someone/status/${fakeTweetIds.mixedMedia}`,
      "&index=1&start=1",
      /photo.*`start` and `end`/,
    ],
  ] as [string, (site: MediaSite) => string, string, RegExp][])(
    "%s is 400 naming the parameter",
    { timeout: scaled(60_000) },
    async (_, url, query, detail) => {
      const response = await download(url(site), query);
      expect(response.status).toBe(400);
      const problem = (await response.json()) as { code: string; detail: string };
      expect(problem.code).toBe("invalid_parameter");
      expect(problem.detail).toMatch(detail);
    },
  );
});
