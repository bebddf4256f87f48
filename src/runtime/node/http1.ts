// HTTP/1.1 on the wire, for the relay's own upstream client (relay-upstream.ts): the request head
// it sends, the response head it reads back, how that response's body is framed, and the decoding
// of a chunked body. Pure functions over bytes; the sockets are the caller's.
import { headLength } from "../../net/outbound-proxy.ts";

/** A response head that is malformed, too large or framed ambiguously: the upstream is not trusted further. */
export class UpstreamProtocolError extends Error {}

export interface ResponseHead {
  status: number;
  headers: Headers;
  /** Bytes the head took, its blank line included: the body starts there. */
  length: number;
}

/** How the body after a head ends (RFC 9112, section 6.3). */
export type BodyFraming = { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" } | {
  kind: "until-close";
};

// node:http's default limit is 16 KiB; a media host's head is well under 2.
const MAX_HEAD_BYTES = 32 * 1024;
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Headers this client sets itself: one exchange per connection, on the URL's own host.
const OWN_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding"]);

/** The request head for one exchange on a fresh connection, which the server closes after answering. */
export function requestHead(method: string, url: URL, headers: Record<string, string>, bodyLength = 0): string {
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || /[\0\r\n]/.test(value)) {
      throw new TypeError(`The header ${JSON.stringify(name)} cannot be sent.`);
    }
    if (!OWN_HEADERS.has(name.toLowerCase())) lines.push(`${name}: ${value}`);
  }
  // A POST says how long its body is, also when it has none (X's guest-token call), or it would stay open.
  if (method === "POST") lines.push(`content-length: ${bodyLength}`);
  lines.push("connection: close", "", "");
  return lines.join("\r\n");
}

/** The head at the start of `bytes`; null while it is incomplete. */
export function parseResponseHead(bytes: Uint8Array): ResponseHead | null {
  const length = headLength(bytes);
  if (length < 0 && bytes.byteLength <= MAX_HEAD_BYTES) return null;
  const end = length - 4;
  if (length < 0 || end > MAX_HEAD_BYTES) {
    throw new UpstreamProtocolError(`The media host sent a response head over ${MAX_HEAD_BYTES} bytes.`);
  }
  const [statusLine, ...fieldLines] = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.[01] ([1-5]\d\d)(?: [^\0\r\n]*)?$/.exec(statusLine!)?.[1];
  if (status === undefined) throw new UpstreamProtocolError("The media host sent a malformed status line.");
  const headers = new Headers();
  for (const line of fieldLines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    // No obsolete line folding (a line that starts with white space): RFC 9112 lets a client refuse it.
    if (colon <= 0 || !TOKEN.test(name)) {
      throw new UpstreamProtocolError("The media host sent a malformed header line.");
    }
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw new UpstreamProtocolError("The media host sent a header value that is not allowed.");
    }
  }
  return { status: Number(status), headers, length };
}

export function bodyFraming(method: string, head: ResponseHead): BodyFraming {
  const { status, headers } = head;
  if (method === "HEAD" || status < 200 || status === 204 || status === 304) return { kind: "none" };
  const transferEncoding = headers.get("transfer-encoding");
  const contentLength = headers.get("content-length");
  // Both at once is how responses are smuggled; node:http refuses it too.
  if (transferEncoding !== null && contentLength !== null) {
    throw new UpstreamProtocolError("The media host sent both Transfer-Encoding and Content-Length.");
  }
  if (transferEncoding !== null) {
    return /(?:^|,)\s*chunked\s*$/i.test(transferEncoding) ? { kind: "chunked" } : { kind: "until-close" };
  }
  if (contentLength === null) return { kind: "until-close" };
  // Repeated lengths arrive joined ("5, 5") and are refused with the rest.
  if (!/^\d{1,15}$/.test(contentLength)) {
    throw new UpstreamProtocolError("The media host sent a malformed Content-Length.");
  }
  return { kind: "length", length: Number(contentLength) };
}

/**
 * Decodes a chunked body fed in pieces as they arrive. Chunk extensions and trailers are read
 * and dropped; anything after the last chunk's trailers is ignored.
 */
export class ChunkedDecoder {
  #state: "size" | "data" | "data-end" | "trailers" | "done" = "size";
  /** Chunk data still to come in the current chunk. */
  #remaining = 0;
  /** The start of a line that continues in the next piece. */
  #line: Buffer = Buffer.alloc(0);

  get done(): boolean {
    return this.#state === "done";
  }

  /** The body bytes in `piece`, as views into it. */
  write(piece: Buffer): Buffer[] {
    const data: Buffer[] = [];
    let at = 0;
    while (at < piece.length && this.#state !== "done") {
      if (this.#state === "data") {
        const taken = Math.min(this.#remaining, piece.length - at);
        data.push(piece.subarray(at, at + taken));
        at += taken;
        this.#remaining -= taken;
        if (this.#remaining === 0) this.#state = "data-end";
        continue;
      }
      const newline = piece.indexOf(10, at);
      const end = newline < 0 ? piece.length : newline + 1;
      this.#line = this.#line.length === 0
        ? piece.subarray(at, end)
        : Buffer.concat([this.#line, piece.subarray(at, end)]);
      at = end;
      if (this.#line.length > MAX_CHUNK_LINE_BYTES) {
        throw new UpstreamProtocolError("The media host sent a malformed chunked body.");
      }
      if (newline < 0) break;
      const line = this.#line.toString("latin1");
      this.#line = Buffer.alloc(0);
      this.#readLine(line);
    }
    return data;
  }

  #readLine(line: string): void {
    if (!line.endsWith("\r\n")) throw new UpstreamProtocolError("The media host sent a malformed chunked body.");
    const content = line.slice(0, -2);
    if (this.#state === "data-end") {
      if (content !== "") throw new UpstreamProtocolError("The media host sent a malformed chunked body.");
      this.#state = "size";
    } else if (this.#state === "trailers") {
      if (content === "") this.#state = "done";
    } else {
      // Up to 13 hex digits: every size stays an exact JavaScript number.
      const size = /^([0-9A-Fa-f]{1,13})[ \t]*(?:;.*)?$/.exec(content)?.[1];
      if (size === undefined) throw new UpstreamProtocolError("The media host sent a malformed chunked body.");
      this.#remaining = parseInt(size, 16);
      this.#state = this.#remaining === 0 ? "trailers" : "data";
    }
  }
}
