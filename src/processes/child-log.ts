// A tool's log (stderr) as it streams: every line is told to the caller's reader, which says
// what it means, and an excerpt in bounded memory is kept for the error and the log line.
import { ApiError } from "../http/problem.ts";
import { createLogExcerpt } from "./log-excerpt.ts";

/**
 * What a line of the log means: "keep" puts it into the excerpt wherever it is; "omit" leaves it
 * out (a progress line, noise that would push the tool's last words out of the excerpt); an
 * ApiError means the run has failed.
 */
export type LogMeaning = ApiError | "keep" | "omit" | undefined;

/** A line longer than this is cut for reading; every sign is near a line's start. */
const maxLineChars = 1024;
const lineEnd = /\r\n|\n|\r/g;

/**
 * Splits the log into lines (a progress line ends in "\r") and hands each to `readLog`, all of
 * them: a sign of trouble may be anywhere in a long log. `onFailure` is told the first line that
 * reads as a failure.
 */
export function childLog(readLog: ((line: string) => LogMeaning) | undefined, onFailure: (error: ApiError) => void) {
  const excerpt = createLogExcerpt();
  /** The line in progress while it is short, with its end once it has one. */
  let line = "";
  /** The start of a line in progress past maxLineChars, whose text went to the excerpt as it came. */
  let head: string | null = null;

  const judge = (text: string, raw: string | null) => {
    const meaning = readLog?.(text);
    if (raw !== null && meaning !== "omit") excerpt.append(raw);
    if (meaning === "keep" || meaning instanceof ApiError) excerpt.keep(text);
    if (meaning instanceof ApiError) onFailure(meaning);
  };
  const take = (piece: string, ends: boolean) => {
    if (head !== null) excerpt.append(piece);
    else {
      line += piece;
      if (line.length > maxLineChars) {
        excerpt.append(line);
        head = line.slice(0, maxLineChars);
        line = "";
      }
    }
    if (!ends) return;
    if (head === null) judge(line.replace(lineEnd, ""), line);
    else judge(head, null);
    line = "";
    head = null;
  };
  return {
    append(text: string) {
      let at = 0;
      for (const match of text.matchAll(lineEnd)) {
        take(text.slice(at, match.index + match[0].length), true);
        at = match.index + match[0].length;
      }
      if (at < text.length) take(text.slice(at), false);
    },
    /** Reads the last line, which had no end: at exit it may still say the run failed. */
    flush() {
      if (line !== "" || head !== null) take("", true);
    },
    text: () => excerpt.text(),
  };
}
