// Reads a stream of JSON messages, one per line, that comes in chunks of any size: a line may
// span many chunks (a description of megabytes), a chunk may hold many lines.

/** A line that is no JSON: its text (cut), for the log, and what the parser said. */
export interface MalformedLine {
  line: string;
  error: unknown;
}

export function createJsonLinesReader(
  onMessage: (message: unknown) => void,
  onMalformed: (malformed: MalformedLine) => void,
): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let parts: string[] = [];
  return (chunk) => {
    let text = decoder.decode(chunk, { stream: true });
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n")) {
      parts.push(text.slice(0, newline));
      text = text.slice(newline + 1);
      const line = parts.join("");
      parts = [];
      if (line.trim() === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (error) {
        onMalformed({ line, error });
        continue;
      }
      onMessage(message);
    }
    if (text) parts.push(text);
  };
}
