// The body sizes responses state, read from their headers.

/** A byte count as Content-Length and Content-Range state it; null when the text is none. */
export function byteCount(value: string | null): number | null {
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

/**
 * The body size a response declares. Counting bytes as they pass would put code on every chunk
 * of a relay (docs/relay-costs.md), so a streamed body of unknown length is counted where it is
 * produced, and here it is null.
 */
export function declaredLength(response: Response): number | null {
  return byteCount(response.headers.get("content-length"));
}
