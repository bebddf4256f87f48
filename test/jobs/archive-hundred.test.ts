// The 100-link archive: a job of 100 X video posts (the recorded NASA post under 100 ids, its MP4
// relayed from the local media site as the clip) completes, and its archive is a ZIP unzip -t finds
// whole, holding 100 files ffprobe plays, in the job's order, and records.json; nothing was written
// under DATA_DIR or the tools' TMPDIR.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/jobs/queue.ts";
import { clipDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { probeFile, snapshotFiles } from "../helpers/media.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";

const run = promisify(execFile);
const postLink = (n: number) => `https://x.com/nasa/status/${numberedPostId(n)}`;

let site: MediaSite;
let x: FakeXUpstream;
let store: TestStore;
let queue: Queue;
let app: TestApp;
let dataDir: string;
let tmp: string;
let mine: string;
const tmpdirBefore = process.env.TMPDIR;

beforeAll(async () => {
  [site, x, store] = await Promise.all([startMediaSite(), startFakeXUpstream(), openTestStore("pglite")]);
  mine = mkdtempSync(path.join(tmpdir(), "archive-hundred-"));
  dataDir = mkdtempSync(path.join(tmpdir(), "archive-hundred-data-"));
  tmp = mkdtempSync(path.join(tmpdir(), "archive-hundred-tmp-"));
  // The tools the app would run are its children, and get its environment.
  process.env.TMPDIR = tmp;
  queue = await startQueue(store.db, {
    retries: 2,
    retryDelayS: 1,
    heartbeatS: 10,
    pollS: 0.5,
    schema: store.queueSchema,
  }, console.error);
  app = buildTestApp(store.db, {
    env: { DATA_DIR: dataDir, X_SYNDICATION_URL: x.syndicationUrl, ORIGIN_OVERRIDES: `video.twimg.com=${site.origin}` },
    queue,
  });
  await app.jobs!.work();
}, 120_000);
afterAll(async () => {
  process.env.TMPDIR = tmpdirBefore;
  await queue?.stop();
  await Promise.all([site?.close(), x?.close(), store?.close()]);
  for (const dir of [dataDir, tmp, mine]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a job of 100 links: its archive holds 100 playable files in order and records.json, and leaves no trace", {
  timeout: 120_000,
}, async () => {
  const key = (await makeKey(store.db, "GOLD")).plain;
  const urls = Array.from({ length: 100 }, (_, at) => postLink(at + 1));
  const created = await app.post("/api/v1/jobs", key, { urls, files: true });
  expect(created.status).toBe(202);
  const location = created.headers.get("location")!;
  const job = await until("the job to complete", async () => {
    const now = (await (await app.get(location, key)).json()) as { status: string; archiveUrl: string | null };
    return now.status === "completed" ? now : undefined;
  }, 90_000);

  const answer = await app.app.fetch(new Request(job.archiveUrl!));
  expect(answer.status).toBe(200);
  const zip = path.join(mine, "job.zip");
  writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));
  expect((await run("unzip", ["-t", zip], { maxBuffer: 2 ** 20 })).stdout).toMatch(/No errors detected/);
  const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
  expect(names).toEqual([
    ...urls.map((_, at) => `${String(at + 1).padStart(4, "0")}-x_${numberedPostId(at + 1)}.mp4`),
    "records.json",
  ]);
  // Unpacked once, and probed four at a time: a hundred files one by one would cost a minute of process starts.
  const unpacked = path.join(mine, "unpacked");
  await run("unzip", ["-q", zip, "-d", unpacked]);
  const probed: [string, string[], number][] = [];
  for (let at = 0; at < 100; at += 4) {
    probed.push(
      ...await Promise.all(
        names.slice(at, at + 4).map(async (name) => {
          const media = await probeFile(path.join(unpacked, name));
          return [name, media.streams, Math.round(media.duration)] as [string, string[], number];
        }),
      ),
    );
  }
  expect(probed).toEqual(names.slice(0, -1).map((name) => [name, ["h264", "aac"], clipDurationSec]));
  const records = JSON.parse(readFileSync(path.join(unpacked, "records.json"), "utf8"));
  expect(records.items.map((item: { url: string }) => item.url)).toEqual(urls);
  // The store is in memory: the data folder stays empty, as the tools' temporary folder.
  expect(snapshotFiles([tmp, dataDir])).toEqual({ [tmp]: [], [dataDir]: [] });
});
