// The 100-link archive: a job of 100 X video posts (the recorded NASA post under 100 ids, its MP4
// relayed from the local media site as the clip) completes, and its archive is a ZIP unzip -t finds
// whole, holding 100 files ffprobe plays (each different file probed once), in the job's order, and
// records.json; nothing was written under DATA_DIR or the tools' TMPDIR.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { clipDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { makeKey } from "../helpers/app.ts";
import { completed, type JobService, startJobService } from "../helpers/job-service.ts";
import { probeFile, snapshotFiles } from "../helpers/media.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);
const postLink = (n: number) => `https://x.com/nasa/status/${numberedPostId(n)}`;

let site: MediaSite;
let x: FakeXUpstream;
let service: JobService;

beforeAll(async () => {
  [site, x] = await Promise.all([startMediaSite(), startFakeXUpstream()]);
  service = await startJobService({
    X_SYNDICATION_URL: x.syndicationUrl,
    ORIGIN_OVERRIDES: `video.twimg.com=${site.origin}`,
  });
}, scaled(120_000));
afterAll(async () => {
  await service?.close();
  await Promise.all([site?.close(), x?.close()]);
});

test("a job of 100 links: its archive holds 100 playable files in order and records.json, and leaves no trace", {
  timeout: scaled(120_000),
}, async () => {
  const { app, scratch, untouched } = service;
  const key = (await makeKey(service.store.db, "GOLD")).plain;
  const urls = Array.from({ length: 100 }, (_, at) => postLink(at + 1));
  const created = await app.post("/api/v1/jobs", key, { urls, files: true });
  expect(created.status).toBe(202);
  const job = await service.jobWhen<{ status: string; archiveUrl: string | null }>(
    key,
    created.headers.get("location")!,
    completed,
    90_000,
  );

  const answer = await app.app.fetch(new Request(job.archiveUrl!));
  expect(answer.status).toBe(200);
  const zip = path.join(scratch, "job.zip");
  writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));
  expect((await run("unzip", ["-t", zip], { maxBuffer: 2 ** 20 })).stdout).toMatch(/No errors detected/);
  const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
  expect(names).toEqual([
    ...urls.map((_, at) => `${String(at + 1).padStart(4, "0")}-x_${numberedPostId(at + 1)}.mp4`),
    "records.json",
  ]);
  // Unpacked once; ffprobe reads each different file once (a process start each): files of the same
  // bytes play alike, and the hundred relays of one clip are one file a hundred times.
  const unpacked = path.join(scratch, "unpacked");
  await run("unzip", ["-q", zip, "-d", unpacked]);
  const clips = names.slice(0, -1).map((name) => readFileSync(path.join(unpacked, name)));
  const probes = new Map<string, Promise<[string[], number]>>();
  const probed = await Promise.all(clips.map((bytes, at) => {
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (!probes.has(digest)) {
      probes.set(
        digest,
        probeFile(path.join(unpacked, names[at]!)).then((media) => [media.streams, Math.round(media.duration)]),
      );
    }
    return probes.get(digest)!;
  }));
  expect(probed).toEqual(clips.map(() => [["h264", "aac"], clipDurationSec]));
  const records = JSON.parse(readFileSync(path.join(unpacked, "records.json"), "utf8"));
  expect(records.items.map((item: { url: string }) => item.url)).toEqual(urls);
  // The store is in memory: the data folder stays empty, as the tools' temporary folder.
  expect(snapshotFiles([untouched.tmp, untouched.dataDir])).toEqual({
    [untouched.tmp]: [],
    [untouched.dataDir]: [],
  });
});
