// A stream's text, read up to a bound: past it the stream is cancelled and the caller's error is
// thrown, so an answer that never ends cannot fill memory. A failed read is thrown as it came.
export async function boundedText(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<string> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(decoder.decode(read.value, { stream: true }));
  }
  return parts.join("") + decoder.decode();
}
