// The archive builder against a local file host: the ZIP it streams is whole for `unzip -t`, its
// files are the bytes served, in the job's order, with records.json last; it asks for a file only
// when the reader reaches it; a file that fails midway breaks the stream, one that cannot be got at
// all is left out and named in records.json with its problem.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { archiveStream, filesOf, type FileWanted, type ItemFile } from "../../src/jobs/archive.ts";
import type { Job, JobItem } from "../../src/jobs/job.ts";
import type { PostRecord } from "../../src/platforms/records.ts";
import { fakeBytes } from "../fakes/cdn.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);
const MB = 2 ** 20;

/** Files of the local host by path; `/broken` sends half of what it declares and drops the connection. */
const files = new Map([["/a.mp4", fakeBytes(1, 4 * MB)], ["/b.jpg", fakeBytes(2, 4 * MB)], [
  "/c.jpg",
  fakeBytes(3, 1000),
]]);
let host: http.Server;
let origin: string;
const asked: string[] = [];
const closed: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "archive-test-"));
  host = http.createServer((req, res) => {
    const pathname = req.url ?? "/";
    asked.push(pathname);
    res.on("close", () => closed.push(pathname));
    if (pathname === "/broken") {
      res.writeHead(200, { "content-length": 2 * MB });
      return res.write(fakeBytes(4, MB), () => res.destroy());
    }
    const bytes = files.get(pathname);
    if (!bytes) return res.writeHead(404).end();
    res.writeHead(200, { "content-length": bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});
afterAll(async () => {
  host.closeAllConnections();
  await new Promise((resolve) => host.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const post = (media: string[]): PostRecord => ({
  platform: "OTHER",
  id: "p",
  media: media.map((name) => ({ type: name.endsWith(".jpg") ? "photo" : "video", url: `${origin}${name}` })),
} as unknown as PostRecord);
const item = (position: number, media: string[] | null): JobItem => ({
  position,
  url: `https://example.test/post/${position}`,
  status: media === null ? "failed" : "done",
  post: media === null ? null : post(media),
  problem: media === null ? { code: "not_found", detail: "gone" } : null,
});
const job: Job = {
  id: "job-1",
  accountId: "1",
  apiKeyId: "k",
  status: "completed",
  request: { urls: [], files: true, format: null, output: "mp4" },
  createdAt: new Date("2026-11-27T20:00:00Z"),
  finishedAt: new Date("2026-11-27T20:01:00Z"),
  counts: { total: 3, done: 2, failed: 1, linksRead: 0 },
  expanded: true,
  complete: true,
  incomplete: null,
  watchId: null,
};

async function* listed(items: JobItem[]) {
  yield* items;
}

/** Each file fetched from the local host when the archive reaches it, named by its path; a failing status is 502, as `download`'s. */
async function fetched({ item, index }: FileWanted): Promise<ItemFile> {
  const url = item.post!.media[(index ?? 1) - 1]!.url!;
  const response = await fetch(url);
  if (!response.ok) throw new ApiError("upstream_failed", `status ${response.status}`);
  return { name: `file${index ?? ""}${path.extname(url)}`, body: response.body! };
}

const archive = (items: JobItem[], fileOf = fetched) =>
  archiveStream({ job, items: listed(items), fileOf, now: new Date("2026-11-27T21:00:00Z") });

async function saved(stream: ReadableStream<Uint8Array>, name: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, new Uint8Array(await new Response(stream).arrayBuffer()));
  return file;
}

describe("archiveStream()", () => {
  test("a ZIP unzip -t finds whole: each file as served, in the job's order, and records.json last", async () => {
    const zip = await saved(archive([item(1, ["/a.mp4"]), item(2, null), item(3, ["/b.jpg", "/c.jpg"])]), "whole.zip");
    expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
    const listing = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
    expect(listing).toEqual(["0001-file.mp4", "0003-file1.jpg", "0003-file2.jpg", "records.json"]);
    const bytesOf = async (entry: string) =>
      (await run("unzip", ["-p", zip, entry], { encoding: "buffer", maxBuffer: 16 * MB })).stdout;
    expect(Buffer.compare(await bytesOf("0003-file1.jpg"), files.get("/b.jpg")!)).toBe(0);
    expect(Buffer.compare(await bytesOf("0003-file2.jpg"), files.get("/c.jpg")!)).toBe(0);
    const records = JSON.parse((await bytesOf("records.json")).toString());
    expect(records).toMatchObject({ id: "job-1", status: "completed", counts: { total: 3, done: 2, failed: 1 } });
    expect(records.items.map((i: { position: number; files: string[] }) => [i.position, i.files])).toEqual([
      [1, ["0001-file.mp4"]],
      [2, []],
      [3, ["0003-file1.jpg", "0003-file2.jpg"]],
    ]);
    expect(records.items[1].problem).toEqual({ code: "not_found", detail: "gone" });
  });

  test("asks for a file only when the reader reaches it, and a cancelled archive ends the file it was reading", async () => {
    asked.length = 0;
    const reader = archive([item(1, ["/a.mp4"]), item(2, ["/b.jpg"])]).getReader();
    let read = 0;
    while (read < 256 * 1024) read += (await reader.read()).value!.length;
    // 256 KiB into a 4 MiB first file: the second is not asked for yet.
    expect(asked).toEqual(["/a.mp4"]);
    await reader.cancel();
    await until("the first file's connection to close", () => closed.includes("/a.mp4"));
    expect(asked).toEqual(["/a.mp4"]);
  });

  test("a file that fails midway breaks the stream", async () => {
    const stream = archive([item(1, ["/c.jpg"]), { ...item(2, ["/a.mp4"]), post: post(["/broken"]) }]);
    await expect(new Response(stream).arrayBuffer()).rejects.toThrow();
  });

  test("a file that cannot be got at all is left out and named in records.json; the others are whole", async () => {
    const zip = await saved(
      archive([item(1, ["/c.jpg"]), item(2, ["/missing.mp4"]), item(3, ["/b.jpg"])]),
      "dead-file.zip",
    );
    expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
    expect((await run("unzip", ["-Z1", zip])).stdout.trim().split("\n")).toEqual([
      "0001-file.jpg",
      "0003-file.jpg",
      "records.json",
    ]);
    const records = JSON.parse((await run("unzip", ["-p", zip, "records.json"])).stdout);
    expect(records.items[1]).toMatchObject({
      position: 2,
      files: [],
      fileProblems: [{ index: null, code: "upstream_failed", detail: "status 404" }],
    });
  });

  test("a failure the service does not name still breaks the stream", async () => {
    const stream = archive([item(1, ["/c.jpg"])], () => Promise.reject(new Error("unforeseen")));
    await expect(new Response(stream).arrayBuffer()).rejects.toThrow(/unforeseen/);
  });

  test("a job of records only holds records.json alone", async () => {
    const recordsOnly = { ...job, request: { ...job.request, files: false } };
    const stream = archiveStream({
      job: recordsOnly,
      items: listed([item(1, ["/a.mp4"])]),
      fileOf: fetched,
      now: new Date(),
    });
    const zip = await saved(stream, "records-only.zip");
    expect((await run("unzip", ["-Z1", zip])).stdout.trim()).toBe("records.json");
  });

  test(
    "an archive past 4 GiB is ZIP64: its file's size and the central directory's place in 64-bit fields",
    async () => {
      // 4 GiB and 4 MiB of one repeated chunk, made as it is read: nothing of it is kept but the tail.
      const chunk = new Uint8Array(4 * MB).fill(7);
      const size = 4 * 2 ** 30 + chunk.length;
      let sent = 0;
      const big = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === size) return controller.close();
          controller.enqueue(chunk);
          sent += chunk.length;
        },
      }, { highWaterMark: 0 });
      const reader = archive([item(1, ["/big.mp4"])], async () => ({ name: "big.mp4", body: big })).getReader();
      let total = 0;
      let tail = new Uint8Array(0);
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        total += next.value.length;
        if (next.value.length >= 1024) {
          tail = next.value.slice(-1024);
          continue;
        }
        const joined = new Uint8Array(tail.length + next.value.length);
        joined.set(tail);
        joined.set(next.value, tail.length);
        tail = joined.slice(-1024);
      }
      const view = new DataView(tail.buffer);
      const end64 = tail.length - 22 - 20 - 56; // end of central directory, its ZIP64 locator, the ZIP64 record
      expect(view.getUint32(end64, true)).toBe(0x06064b50);
      expect(view.getUint32(end64 + 56, true)).toBe(0x07064b50);
      expect(Number(view.getBigUint64(end64 + 32, true))).toBe(2); // the file and records.json
      const directorySize = Number(view.getBigUint64(end64 + 40, true));
      const directoryAt = Number(view.getBigUint64(end64 + 48, true));
      expect(directoryAt).toBeGreaterThan(2 ** 32);
      expect(directoryAt + directorySize).toBe(total - 22 - 20 - 56);
      // The file's central record: its sizes are 0xFFFFFFFF, the real ones in its ZIP64 extra field.
      const central = end64 - directorySize;
      expect(view.getUint32(central, true)).toBe(0x02014b50);
      expect(view.getUint32(central + 24, true)).toBe(0xffffffff);
      const extra = central + 46 + view.getUint16(central + 28, true);
      expect(view.getUint16(extra, true)).toBe(0x0001);
      expect(Number(view.getBigUint64(extra + 4, true))).toBe(size);
    },
    scaled(300_000),
  );

  test("with sound alone, a post's photos give no file: its videos do", () => {
    const sound = { ...job, request: { ...job.request, output: "mp3" as const } };
    expect(filesOf(item(1, ["/b.jpg"]), sound)).toEqual([]);
    expect(filesOf(item(2, ["/b.jpg", "/a.mp4", "/c.jpg"]), sound).map((wanted) => wanted.index)).toEqual([2]);
    expect(filesOf(item(3, ["/a.mp4"]), sound).map((wanted) => wanted.index)).toEqual([null]);
    expect(filesOf(item(4, ["/b.jpg", "/c.jpg"]), job).map((wanted) => wanted.index)).toEqual([1, 2]);
  });
});
