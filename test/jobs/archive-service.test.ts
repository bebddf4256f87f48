// A job's archive from the built service, as an operator runs it: embedded store in DATA_DIR, the
// tools' TMPDIR of its own, a local page site and the local Bluesky. The archive, fetched over HTTP
// by the signed link the finished job shows, is whole for unzip -t with clips ffprobe plays; the
// service wrote nothing for it: DATA_DIR holds what start-up made (the store, its lock, the admin
// socket's folder) and TMPDIR nothing.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { cardThread, type FakeBluesky, linkOf, startFakeBluesky } from "../fakes/bluesky.ts";
import { clipDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { probeMedia, snapshotFiles } from "../helpers/media.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);

let site: MediaSite;
let bluesky: FakeBluesky;
let service: RunningService;
let dataDir: string;
let tmp: string;
let mine: string;
let key: string;

beforeAll(async () => {
  [site, bluesky] = await Promise.all([startMediaSite(), startFakeBluesky()]);
  dataDir = mkdtempSync(path.join(tmpdir(), "archive-data-"));
  tmp = mkdtempSync(path.join(tmpdir(), "archive-tmp-"));
  mine = mkdtempSync(path.join(tmpdir(), "archive-mine-"));
  service = await startService({
    DATA_DIR: dataDir,
    TMPDIR: tmp,
    EXTRA_PAGE_HOSTS: site.host,
    BLUESKY_APPVIEW_URL: bluesky.origin,
    ORIGIN_OVERRIDES: bluesky.originOverrides,
    X_GRAPHQL_URL: "off",
  });
  const env = { DATA_DIR: dataDir };
  await runAdmin(["users", "create", "--email", "archive@example.com"], env, "archive password\n");
  key = (await runAdmin(["keys", "create", "--email", "archive@example.com", "--tier", "GOLD"], env)).stdout.trim();
}, scaled(180_000));
afterAll(async () => {
  await service?.stop();
  await Promise.all([site?.close(), bluesky?.close()]);
  for (const dir of [dataDir, tmp, mine]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the built service streams a finished job's archive by its signed link, and leaves no trace", {
  timeout: scaled(300_000),
}, async () => {
  const started = snapshotFiles([dataDir, tmp]);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const urls = [site.pages.progressive, site.pages.hls, linkOf(cardThread.thread.post)];
  const created = await fetch(`${service.url}/api/v1/jobs`, {
    method: "POST",
    headers,
    body: JSON.stringify({ urls, files: true }),
  });
  expect(created.status).toBe(202);
  const location = created.headers.get("location")!;
  const job = await until("the job to finish", async () => {
    const now = (await (await fetch(`${service.url}${location}`, { headers })).json()) as {
      status: string;
      archiveUrl: string | null;
    };
    return now.status === "completed" ? now : undefined;
  }, 240_000);

  const answer = await fetch(job.archiveUrl!);
  expect(answer.status).toBe(200);
  const zip = path.join(mine, "job.zip");
  writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));
  expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
  const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
  expect(names.map((name) => name.slice(0, 5))).toEqual(["0001-", "0002-", "0006-", "recor"]);
  for (const clip of names.slice(0, 2)) {
    const bytes = (await run("unzip", ["-p", zip, clip], { encoding: "buffer", maxBuffer: 64 * 2 ** 20 })).stdout;
    expect((await probeMedia(bytes)).duration).toBeCloseTo(clipDurationSec, 0);
  }
  expect(snapshotFiles([dataDir, tmp])).toEqual(started);
  expect(started[tmp]).toEqual([]);
});
