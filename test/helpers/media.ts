// Looking at what page mode produced: ffprobe on the bytes, the tools still running, the files on disk.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { holdsWithin } from "./until.ts";

const run = promisify(execFile);

export interface ProbedMedia {
  duration: number;
  /** Codec names, one per stream. */
  streams: string[];
  /** Stream bit rates in b/s, where ffprobe knows them. */
  bitRates: number[];
}

/** ffprobe on a copy of the bytes in a file of the test's own (the service writes none). */
export async function probeMedia(bytes: Uint8Array): Promise<ProbedMedia> {
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  try {
    const file = join(dir, "media");
    writeFileSync(file, bytes);
    return await probeFile(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ffprobe on a file: its length, its streams' codecs and bit rates. */
export async function probeFile(file: string): Promise<ProbedMedia> {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration:stream=codec_name,bit_rate",
    "-of",
    "json",
    file,
  ]);
  const parsed = JSON.parse(stdout) as {
    format: { duration?: string };
    streams: { codec_name: string; bit_rate?: string }[];
  };
  return {
    duration: Number(parsed.format.duration),
    streams: parsed.streams.map((stream) => stream.codec_name),
    bitRates: parsed.streams.flatMap((stream) => (stream.bit_rate ? [Number(stream.bit_rate)] : [])),
  };
}

/**
 * The init segment of fragmented MP4 (ftyp and moov): the bytes before the first moof, which
 * is what a player has when it first decides what to show.
 */
export function initSegment(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (at + 8 <= bytes.byteLength && String.fromCharCode(...bytes.subarray(at + 4, at + 8)) !== "moof") {
    const size = view.getUint32(at);
    if (size < 8) throw new Error(`no MP4 box at byte ${at}`);
    at += size;
  }
  return bytes.subarray(0, at);
}

/** yt-dlp and ffmpeg processes whose command line names `needle` (a test site's host), zombies excluded. */
export function runningTools(needle: string): string[] {
  const out = execFileSync("ps", ["-eo", "stat=,args="]).toString();
  return out
    .split("\n")
    .filter((line) => line.includes(needle) && /\b(yt-dlp|ffmpeg)\b/.test(line) && !line.trim().startsWith("Z"));
}

/** The yt-dlp and ffmpeg of `needle` still running once they are gone or `ms` has passed (not scaled: the bound is the behaviour). */
export async function toolsLeft(needle: string, ms: number): Promise<string[]> {
  await holdsWithin(() => runningTools(needle).length === 0, ms, 100);
  return runningTools(needle);
}

/** The names in each folder (not recursive), to see that nothing new appears. */
export function snapshotFiles(dirs: string[]): Record<string, string[]> {
  return Object.fromEntries(dirs.map((dir) => [dir, readdirSync(dir).sort()]));
}
