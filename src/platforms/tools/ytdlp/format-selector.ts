// yt-dlp's format selection (`-f`), done in-process on a description yt-dlp already gave, so a
// download needs no second yt-dlp run (a Python start of 0.3-1 s). It follows yt-dlp's
// YoutubeDL._build_format_selector for the part of the grammar people use: alternatives `/`,
// merges `+`, the atoms b, w, bv, bv*, ba, ba*, wv, wv*, wa, wa*, best..., a format id or an
// extension, and `[key op value]` filters. Anything else (`,`, parentheses, `all`, `b.2`, ...)
// parses to null, and the caller lets yt-dlp itself select (`--load-info-json`).
import { ApiError } from "../../../http/problem.ts";
import type { YtdlpFormat } from "./info.ts";

type Filter = (format: YtdlpFormat) => boolean;
interface Atom {
  spec: string;
  filters: Filter[];
}
/** Alternatives, each a merge of one or more atoms. */
export type FormatSelector = Atom[][];

// yt-dlp's MEDIA_EXTENSIONS: an extension as the atom means the best format with that extension
// (for a video extension, with sound; without such a format, any with video).
const audioExtensions = new Set(["aiff", "alac", "flac", "m4a", "mka", "mp3", "ogg", "opus", "wav"]);
const videoExtensions = new Set(["avi", "flv", "mkv", "mov", "mp4", "webm", "3gp"]);
const bestWorst = /^(b|w|best|worst)(v|a|video|audio)?(\*)?(?:\.([1-9]\d*))?$/;
const atomPattern = /^[\w.*-]+$/;
const filterPattern = /^\s*([\w.-]+)\s*(!?)\s*(<=|>=|<|>|=|\^=|\$=|\*=|~=)\s*(\?)?\s*(.*?)\s*$/;

/** The selector as alternatives of merges, or null when it uses more of yt-dlp's grammar than this knows. */
export function parseFormatSelector(text: string): FormatSelector | null {
  if (/[,()]/.test(text)) return null;
  const alternatives: FormatSelector = [];
  for (const alternative of text.split("/")) {
    const merge: Atom[] = [];
    for (const part of alternative.split("+")) {
      const atom = parseAtom(part.trim());
      if (atom === null) return null;
      merge.push(atom);
    }
    alternatives.push(merge);
  }
  return alternatives;
}

function parseAtom(text: string): Atom | null {
  const bracket = text.indexOf("[");
  const spec = bracket === -1 ? text : text.slice(0, bracket);
  if ((spec !== "" && !atomPattern.test(spec)) || spec === "all" || spec === "mergeall") return null;
  const filters: Filter[] = [];
  let rest = bracket === -1 ? "" : text.slice(bracket);
  while (rest !== "") {
    const close = rest.indexOf("]");
    if (!rest.startsWith("[") || close === -1) return null;
    const filter = parseFilter(rest.slice(1, close));
    if (filter === null) return null;
    filters.push(filter);
    rest = rest.slice(close + 1);
  }
  // `[height<=720]` alone means `best[height<=720]`.
  return { spec: spec === "" ? "best" : spec, filters };
}

function parseFilter(text: string): Filter | null {
  const match = filterPattern.exec(text);
  if (!match) return null;
  const [, key, negation, op, unknownPasses, rawValue] = match as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const value = rawValue.replace(/^(["'])(.*)\1$/, "$2");
  const passesUnknown = unknownPasses === "?";
  // yt-dlp reads a number with a size suffix (500M) as bytes; left to yt-dlp.
  if (/^[0-9.]+[kKmMgGtTpPeEzZyY]i?[Bb]?$/.test(rawValue)) return null;
  let compare: (actual: unknown) => boolean;
  if (/^[0-9.]+$/.test(rawValue) && !["^=", "$=", "*=", "~="].includes(op!)) {
    if (negation && op !== "=") return null;
    const limit = Number(value);
    if (Number.isNaN(limit)) return null;
    const ops: Record<string, (a: number) => boolean> = {
      "<": (a) => a < limit,
      "<=": (a) => a <= limit,
      ">": (a) => a > limit,
      ">=": (a) => a >= limit,
      "=": (a) => a === limit,
    };
    const test = ops[op!];
    if (!test) return null;
    compare = negation ? (actual) => actual !== limit : (actual) => typeof actual === "number" && test(actual);
  } else {
    const ops: Record<string, (a: string) => boolean> = {
      "=": (a) => a === value,
      "^=": (a) => a.startsWith(value),
      "$=": (a) => a.endsWith(value),
      "*=": (a) => a.includes(value),
    };
    let test = ops[op!];
    if (op === "~=") {
      try {
        const pattern = new RegExp(value);
        test = (a) => pattern.test(a);
      } catch {
        return null;
      }
    }
    if (!test) return null;
    compare = negation ? (actual) => !test(String(actual)) : (actual) => test(String(actual));
  }
  return (format) => {
    const actual = (format as Record<string, unknown>)[key!];
    return actual === null || actual === undefined ? passesUnknown : compare(actual);
  };
}

/**
 * The formats the selector picks from `formats` (yt-dlp's order: worst first), as yt-dlp would:
 * one format, or a video and an audio format to merge. Throws 400 `format_not_available` when no
 * alternative matches.
 */
export function selectFormats(selector: FormatSelector, formats: readonly YtdlpFormat[]): YtdlpFormat[] {
  const context: Context = {
    formats,
    // A source with no video or no sound at all, where plain `b` and `w` take what there is.
    incomplete: formats.every((f) => f.vcodec === "none") || formats.every((f) => f.acodec === "none"),
    hasMerged: formats.some((f) => f.vcodec !== "none" && f.acodec !== "none"),
  };
  for (const merge of selector) {
    const picked: YtdlpFormat[] = [];
    for (const atom of merge) {
      const format = pickOne(atom, context);
      if (format === undefined) break;
      picked.push(format);
    }
    if (picked.length === merge.length) return picked.length === 1 ? picked : mergeStreams(picked);
  }
  throw new ApiError(
    "format_not_available",
    "The `format` selector matches no format of this video; use a formatId from /api/v1/post or leave `format` out.",
  );
}

interface Context {
  formats: readonly YtdlpFormat[];
  incomplete: boolean;
  hasMerged: boolean;
}

const hasSomething: Filter = (f) => f.vcodec !== "none" || f.acodec !== "none";

function pickOne(atom: Atom, context: Context): YtdlpFormat | undefined {
  const formats = context.formats.filter((f) => atom.filters.every((filter) => filter(f)));
  let wanted: Filter;
  let fallback: Filter | null = null;
  let best = true;
  let index = 1;
  const kind = bestWorst.exec(atom.spec);
  if (kind) {
    const [, which, stream, any, nth] = kind;
    best = which!.startsWith("b");
    index = nth ? Number(nth) : 1;
    const type = stream?.[0];
    const kindFilter: Filter = type && any
      ? (f) => (type === "v" ? f.vcodec : f.acodec) !== "none"
      : type
      ? (f) => (type === "v" ? f.acodec : f.vcodec) === "none"
      : !any
      ? (f) => f.vcodec !== "none" && f.acodec !== "none"
      : () => true;
    wanted = (f) => kindFilter(f) && hasSomething(f);
    if (!type && !any && context.incomplete) fallback = hasSomething;
  } else if (audioExtensions.has(atom.spec)) {
    wanted = (f) => f.ext === atom.spec && f.acodec !== "none";
  } else if (videoExtensions.has(atom.spec)) {
    wanted = (f) => f.ext === atom.spec && f.acodec !== "none" && f.vcodec !== "none";
    if (!context.hasMerged) fallback = (f) => f.ext === atom.spec && f.vcodec !== "none";
  } else {
    wanted = (f) => f.format_id === atom.spec;
  }
  let matches = formats.filter(wanted);
  if (matches.length === 0 && fallback !== null) matches = formats.filter(fallback);
  return (best ? matches.reverse() : matches)[index - 1];
}

// yt-dlp's _merge, down to its loop that drops list items while it walks them: one stream of each
// kind, so `bv*+ba` on a format that has sound is that format alone.
function mergeStreams(picked: YtdlpFormat[]): YtdlpFormat[] {
  const kept = [...picked];
  const taken = { audio: false, video: false };
  for (let i = 0; i < kept.length; i++) {
    const format = kept[i]!;
    if (format.acodec === "none" && format.vcodec === "none") {
      kept.splice(i, 1);
      continue;
    }
    for (const kind of ["audio", "video"] as const) {
      if ((kind === "audio" ? format.acodec : format.vcodec) === "none") continue;
      if (taken[kind]) {
        kept.splice(i, 1);
        break;
      }
      taken[kind] = true;
    }
  }
  return kept;
}
