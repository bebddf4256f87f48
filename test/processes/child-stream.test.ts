import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { ffmpegArgs, readFfmpegLog, type RemuxPlan } from "../../src/media/ffmpeg.ts";
import { spawnStream, type SpawnStreamOptions } from "../../src/processes/child-stream.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";
import { clipDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { holdsWithin } from "../helpers/until.ts";

const run = promisify(execFile);
let site: MediaSite;
let outDir: string;

beforeAll(async () => {
  site = await startMediaSite();
  outDir = await mkdtemp(path.join(tmpdir(), "process-test-"));
});
afterAll(async () => {
  await site?.close();
  await rm(outDir, { recursive: true, force: true });
});

const limits = { readTimeoutMs: 2000, reconnectDelayMaxSec: 1, maxReconnects: 3 };
/** A fresh reader of ffmpeg's log for every run. */
const ffmpegOptions = (): SpawnStreamOptions => readFfmpegLog(limits);
const filePlan = (url: string, output: RemuxPlan["output"] = "mp4"): RemuxPlan => ({
  output,
  inputs: [{ url, headers: { "User-Agent": "test-agent" } }].map((i) => ({ ...i, hls: false })),
  videoInput: output === "mp3" ? null : 0,
  audioInput: 0,
  transcodeVideo: false,
  transcodeAudio: false,
  adtsAudio: false,
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return Buffer.concat(chunks);
}

/** Reads until the stream fails; returns the bytes that came before and the error. */
async function readUntilError(stream: ReadableStream<Uint8Array>): Promise<{ bytes: number; error: unknown }> {
  let bytes = 0;
  const reader = stream.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
  } catch (error) {
    return { bytes, error };
  }
  return { bytes, error: null };
}

async function probe(data: Buffer, name: string) {
  const file = path.join(outDir, name);
  await writeFile(file, data);
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration,bit_rate:stream=codec_name,bit_rate",
    "-of",
    "json",
    file,
  ]);
  return JSON.parse(stdout) as {
    format: { duration: string; bit_rate: string };
    streams: { codec_name: string; bit_rate?: string }[];
  };
}

/** A zombie counts as gone: in containers nobody may reap an orphaned grandchild. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
function waitUntilGone(pid: number, ms: number): Promise<boolean> {
  return holdsWithin(() => !isAlive(pid), ms, 20);
}

describe("spawnStream(nodeProcesses, ) with real ffmpeg", () => {
  test("remuxes the site's MP4 to fragmented MP4 with the right duration, sending our User-Agent", async () => {
    const child = spawnStream(nodeProcesses, "ffmpeg", ffmpegArgs(filePlan(site.mp4Url), limits), ffmpegOptions());
    await expect(child.firstChunk).resolves.toBeUndefined();
    const data = await readAll(child.stdout);
    expect(await child.exited).toBe(0);
    expect(data.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const info = await probe(data, "remux.mp4");
    expect(info.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(Number(info.format.duration)).toBeCloseTo(clipDurationSec, 0);
    expect(site.requestLog.some((r) => r.path === "/media/clip.mp4" && r.userAgent === "test-agent")).toBe(true);
  });

  test("extracts MP3 at 320 kb/s", async () => {
    const child = spawnStream(
      nodeProcesses,
      "ffmpeg",
      ffmpegArgs(filePlan(site.mp4Url, "mp3"), limits),
      ffmpegOptions(),
    );
    const data = await readAll(child.stdout);
    expect(await child.exited).toBe(0);
    const info = await probe(data, "audio.mp3");
    expect(info.streams).toEqual([expect.objectContaining({ codec_name: "mp3", bit_rate: "320000" })]);
    expect(Number(info.format.duration)).toBeCloseTo(clipDurationSec, 0);
  });

  test("a source that fails before the first byte rejects firstChunk with the classified error", async () => {
    const child = spawnStream(
      nodeProcesses,
      "ffmpeg",
      ffmpegArgs(filePlan(`${site.origin}/media/gone.mp4`), limits),
      ffmpegOptions(),
    );
    await expect(child.firstChunk).rejects.toMatchObject({ status: 404, code: "not_found" });
    const { bytes, error } = await readUntilError(child.stdout);
    expect(bytes).toBe(0);
    expect(error).toMatchObject({ status: 404 });
  });

  test("a source that breaks off after output started errors the stream, never a clean end", async () => {
    const child = spawnStream(
      nodeProcesses,
      "ffmpeg",
      ffmpegArgs(filePlan(`${site.origin}/media/truncated.mp4`), limits),
      ffmpegOptions(),
    );
    await expect(child.firstChunk).resolves.toBeUndefined();
    const { bytes, error } = await readUntilError(child.stdout);
    expect(bytes).toBeGreaterThan(1000);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
    expect(await child.exited).not.toBe(0);
  });

  test("cancelling the stream ends ffmpeg within a second", async () => {
    const child = spawnStream(
      nodeProcesses,
      "ffmpeg",
      ffmpegArgs(filePlan(`${site.origin}/media/stalled.mp4`), { ...limits, readTimeoutMs: 60_000 }),
      ffmpegOptions(),
    );
    await child.firstChunk;
    expect(isAlive(child.pid)).toBe(true);
    await child.stdout.cancel();
    expect(await waitUntilGone(child.pid, 1500)).toBe(true);
    expect(await child.exited).toBeNull();
  });
});

describe("spawnStream(nodeProcesses, ) mechanics", () => {
  const fail = (code: number | null, stderr: string) =>
    new ApiError("upstream_failed", `exit ${code}: ${stderr.slice(-20)}`);

  test("holds the child back while nobody reads (backpressure), then delivers every byte", async () => {
    const child = spawnStream(nodeProcesses, "dd", ["if=/dev/zero", "bs=65536", "count=1000", "status=none"], {
      classify: fail,
      highWaterMark: 64 * 1024,
    });
    await child.firstChunk;
    await new Promise((r) => setTimeout(r, 300));
    // 64 MB would be written in well under 300 ms if nothing held dd back.
    expect(isAlive(child.pid)).toBe(true);
    expect((await readAll(child.stdout)).byteLength).toBe(65536 * 1000);
    expect(await child.exited).toBe(0);
  });

  test("a stalled child is killed at the time cap with 504", async () => {
    const child = spawnStream(nodeProcesses, "sleep", ["10"], { classify: fail, timeoutMs: 200 });
    await expect(child.firstChunk).rejects.toMatchObject({ status: 504, code: "upstream_timeout" });
    expect(await waitUntilGone(child.pid, 1500)).toBe(true);
  });

  test("a child whose output stops is not cut while its source keeps sending (an honest slow source)", async () => {
    const child = spawnStream(nodeProcesses, "sh", ["-c", "echo start; sleep 2; echo done"], {
      classify: fail,
      idle: { timeoutMs: 300, lastSourceByte: () => Date.now() },
    });
    expect((await readAll(child.stdout)).toString()).toBe("start\ndone\n");
    expect(await child.exited).toBe(0);
  });

  test("a child whose output and source both stop is cut after the idle time as upstream_timeout", async () => {
    const started = Date.now();
    const sourceSentAt = Date.now();
    const child = spawnStream(nodeProcesses, "sh", ["-c", "echo start; sleep 30"], {
      classify: fail,
      idle: { timeoutMs: 600, lastSourceByte: () => sourceSentAt },
    });
    const reader = child.stdout.getReader();
    expect((await reader.read()).value?.byteLength).toBe(6);
    await expect(reader.read()).rejects.toMatchObject({ status: 504, code: "upstream_timeout" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await waitUntilGone(child.pid, 1500)).toBe(true);
  });

  test("a child whose source went silent is cut as upstream_timeout", async () => {
    const child = spawnStream(nodeProcesses, "sleep", ["30"], {
      classify: fail,
      idle: { timeoutMs: 600, lastSourceByte: () => 0 },
    });
    await expect(child.firstChunk).rejects.toMatchObject({ status: 504, code: "upstream_timeout" });
  });

  test("an AbortSignal kills the child and its process group", async () => {
    const controller = new AbortController();
    const child = spawnStream(nodeProcesses, "sh", ["-c", "sleep 30 & echo $!; wait"], {
      classify: fail,
      signal: controller.signal,
    });
    const reader = child.stdout.getReader();
    const grandchild = Number(new TextDecoder().decode((await reader.read()).value).trim());
    expect(isAlive(grandchild)).toBe(true);
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ code: "client_closed" });
    expect(await waitUntilGone(child.pid, 1500)).toBe(true);
    expect(await waitUntilGone(grandchild, 1500)).toBe(true);
  });

  test("keeps an excerpt of a long stderr (its start, the lines readLog kept, its end) and passes it to classify", async () => {
    const script =
      "head -c 20000 /dev/zero | tr '\\0' x >&2; echo >&2; echo SIGN in the middle >&2; head -c 20000 /dev/zero | tr '\\0' y >&2; echo END >&2; exit 3";
    const child = spawnStream(nodeProcesses, "sh", ["-c", script], {
      classify: fail,
      readLog: (line) => (line.startsWith("SIGN") ? "keep" : undefined),
    });
    await expect(child.firstChunk).rejects.toThrow("exit 3: yyyyyyyyyyyyyyyyEND\n");
    const excerpt = child.stderr();
    expect(excerpt.length).toBeLessThanOrEqual(8192);
    expect(excerpt.startsWith("x".repeat(2048))).toBe(true);
    expect(excerpt).toContain("\nSIGN in the middle\n");
    expect(excerpt.endsWith("yyyyEND\n")).toBe(true);
    expect(await child.exited).toBe(3);
  });

  test("a line readLog reads as a failure ends the tool at once with its error, wherever it is in the log", async () => {
    const started = Date.now();
    const script =
      "echo data; head -c 50000 /dev/zero | tr '\\0' x >&2; echo >&2; echo 'the input is lost' >&2; sleep 30";
    const lost = new ApiError("upstream_failed", "lost");
    const child = spawnStream(nodeProcesses, "sh", ["-c", script], {
      classify: fail,
      readLog: (line) => (line.includes("input is lost") ? lost : undefined),
    });
    const { bytes, error } = await readUntilError(child.stdout);
    expect(bytes).toBe(5);
    expect(error).toBe(lost);
    expect(await waitUntilGone(child.pid, 2500)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(child.stderr()).toContain("the input is lost");
  });

  test("a clean exit without output ends the stream empty", async () => {
    const child = spawnStream(nodeProcesses, "true", [], { classify: fail });
    await expect(child.firstChunk).resolves.toBeUndefined();
    expect((await readAll(child.stdout)).byteLength).toBe(0);
  });

  test("exit 0 with a log showing lost input counts as failure, however much log follows", async () => {
    const script = "echo data; echo 'x: Input/output error' >&2; head -c 30000 /dev/zero | tr '\\0' x >&2";
    const child = spawnStream(nodeProcesses, "sh", ["-c", script], { ...readFfmpegLog(limits), classify: fail });
    const { bytes, error } = await readUntilError(child.stdout);
    expect(bytes).toBe(5);
    expect(error).toMatchObject({ status: 502 });
  });

  test("a missing program is a 502, not a crash", async () => {
    const child = spawnStream(nodeProcesses, "/nonexistent/ffmpeg", [], { classify: fail });
    await expect(child.firstChunk).rejects.toMatchObject({ status: 502, code: "upstream_failed" });
    expect(await child.exited).toBeNull();
  });
});

test("spawnStream(nodeProcesses, ) with an already aborted signal never lets the child run", async () => {
  const controller = new AbortController();
  controller.abort();
  const child = spawnStream(nodeProcesses, "sleep", ["10"], {
    classify: (code) => new ApiError("upstream_failed", `exit ${code}`),
    signal: controller.signal,
  });
  await expect(child.firstChunk).rejects.toMatchObject({ code: "client_closed" });
  expect(await child.exited).toBeNull();
});

test("children get no proxy variables: the egress gate is their only way out", async () => {
  const saved = { no_proxy: process.env.no_proxy, https_proxy: process.env.https_proxy };
  process.env.no_proxy = "127.0.0.1,10.0.0.0/8";
  process.env.https_proxy = "http://elsewhere.example:3128";
  try {
    const child = spawnStream(nodeProcesses, "sh", ["-c", "env"], ffmpegOptions());
    const names = (await readAll(child.stdout)).toString().split("\n").map((line) => line.split("=")[0]!.toLowerCase());
    expect(names).not.toContain("no_proxy");
    expect(names).not.toContain("https_proxy");
    expect(names).toContain("path");
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
