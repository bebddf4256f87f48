// What is kept of a media tool's log, the same whether the tool ran as its own program
// (child-stream.ts) or in a child of the extraction host (host-process.ts): the failure a caller
// classifies is then classified the same either way.

const excerptHeadChars = 2 * 1024;
const excerptKeptChars = 2 * 1024;
const excerptTailChars = 4 * 1024;

export interface LogExcerpt {
  append(text: string): void;
  /** Keeps `line` in the excerpt wherever it was (an error line), within the excerpt's bound. */
  keep(line: string): void;
  text(): string;
}

/**
 * A tool's log in bounded memory, for the error and the log line: its first 2 KiB (where a tool
 * says what it could not open), up to 2 KiB of lines kept for what they say, wherever they were,
 * and its last 4 KiB (how it ended). A log that fits whole is kept whole.
 */
export function createLogExcerpt(): LogExcerpt {
  let head = "";
  let tail = "";
  let kept: string[] = [];
  let keptChars = 0;
  let dropped = false;
  return {
    append(text) {
      const room = excerptHeadChars - head.length;
      if (room > 0) {
        head += text.slice(0, room);
        text = text.slice(room);
      }
      tail += text;
      if (tail.length > excerptTailChars) {
        dropped = true;
        tail = tail.slice(-excerptTailChars);
      }
    },
    keep(line) {
      if (keptChars + line.length + 1 > excerptKeptChars || kept.includes(line)) return;
      kept = [...kept, line];
      keptChars += line.length + 1;
    },
    text() {
      if (!dropped) return head + tail;
      return [head, ...(kept.length ? ["[...]", ...kept] : []), "[...]", tail].join("\n");
    },
  };
}
