// A transcript's cues read from the subtitle files platforms serve (WebVTT, SRT) and written as
// the formats a caller asks for: SRT, WebVTT, and plain text in paragraphs. Pure.

/** One timed line of a transcript, in seconds from the media's start. */
export interface Cue {
  start: number;
  end: number;
  text: string;
}

/** `hh:mm:ss.fff`, `mm:ss.fff` (WebVTT) or `hh:mm:ss,fff` (SRT) as seconds; null when it is neither. */
export function timeOf(text: string): number | null {
  const match = /^(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})$/.exec(text.trim());
  if (match === null) return null;
  const [, hours, minutes, seconds, fraction] = match;
  return Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(fraction!.padEnd(3, "0")) / 1000;
}

const TIMING = /^\s*(\S+)\s+-->\s+(\S+)/;

/**
 * The cue text without markup: WebVTT's tags (`<c>`, `<v Name>`, the word timings `<00:00:01.000>`
 * of automatic captions) and SRT's `<i>`/`<b>`/`<font>`; the entities WebVTT escapes, unescaped.
 */
function plainText(lines: readonly string[]): string {
  return lines
    .map((line) => line.replace(/<[^>]*>/g, "").trim())
    .filter((line) => line !== "")
    .join("\n")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&");
}

/** The cues of blocks separated by blank lines, each with a timing line; blocks without one (headers, notes, styles) are skipped. */
function cuesOfBlocks(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const block of text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split(/\n{2,}/)) {
    const lines = block.split("\n");
    const at = lines.findIndex((line) => TIMING.test(line));
    if (at === -1) continue;
    const [, from, to] = TIMING.exec(lines[at]!)!;
    const start = timeOf(from!);
    const end = timeOf(to!);
    const words = plainText(lines.slice(at + 1));
    if (start === null || end === null || words === "") continue;
    cues.push({ start, end, text: words });
  }
  return withoutRollingRepeats(cues);
}

/**
 * Automatic captions (a video site's own, made by speech recognition) roll: each cue repeats the line before it above the new one, so
 * that a player shows two lines. A line that the cue before ended with is not said again.
 */
function withoutRollingRepeats(cues: Cue[]): Cue[] {
  const kept: Cue[] = [];
  let previous: string[] = [];
  for (const cue of cues) {
    const lines = cue.text.split("\n");
    const fresh = lines.filter((line, index) => !(index === 0 && previous.at(-1) === line));
    previous = lines;
    if (fresh.length > 0) kept.push({ ...cue, text: fresh.join("\n") });
  }
  return kept;
}

/** The cues of a WebVTT file. */
export const parseVtt = (text: string): Cue[] => cuesOfBlocks(text);

/** The cues of an SRT file (its counters are lines before the timing, skipped as a WebVTT cue's id is). */
export const parseSrt = (text: string): Cue[] => cuesOfBlocks(text);

const pad = (value: number, width: number) => String(value).padStart(width, "0");

function clockOf(seconds: number, separator: "." | ","): string {
  const ms = Math.round(seconds * 1000);
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor(ms / 60_000) % 60;
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}${separator}${pad(ms % 1000, 3)}`;
}

export function cuesToSrt(cues: readonly Cue[]): string {
  return cues
    .map((cue, index) => `${index + 1}\n${clockOf(cue.start, ",")} --> ${clockOf(cue.end, ",")}\n${cue.text}\n`)
    .join("\n");
}

export function cuesToVtt(cues: readonly Cue[]): string {
  const escaped = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `WEBVTT\n\n${
    cues.map((cue) => `${clockOf(cue.start, ".")} --> ${clockOf(cue.end, ".")}\n${escaped(cue.text)}\n`).join("\n")
  }`;
}

/** A pause this long between two cues starts a new paragraph. */
const PARAGRAPH_PAUSE_SEC = 2;

/** The words as plain paragraphs: a cue's lines joined with spaces, a paragraph wherever the speech pauses. */
export function cuesToText(cues: readonly Cue[]): string {
  const paragraphs: string[][] = [];
  let lastEnd = -Infinity;
  for (const cue of cues) {
    if (cue.start - lastEnd >= PARAGRAPH_PAUSE_SEC || paragraphs.length === 0) paragraphs.push([]);
    paragraphs.at(-1)!.push(cue.text.replace(/\s*\n\s*/g, " "));
    lastEnd = cue.end;
  }
  return paragraphs.map((words) => words.join(" ")).join("\n\n") + (paragraphs.length > 0 ? "\n" : "");
}
