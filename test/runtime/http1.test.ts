// The wire format of the relay's own upstream client: request heads, response heads, body framing
// and chunked decoding, including pieces split at every possible byte.
import { describe, expect, it } from "vitest";
import {
  bodyFraming,
  ChunkedDecoder,
  parseResponseHead,
  requestHead,
  UpstreamProtocolError,
} from "../../src/runtime/node/http1.ts";

const bytes = (text: string) => Buffer.from(text, "latin1");

describe("requestHead()", () => {
  it("asks for the path and query on the URL's host, one exchange per connection", () => {
    const head = requestHead("GET", new URL("https://video.twimg.com:8443/a/b.mp4?tag=12#frag"), {
      range: "bytes=0-99",
      "user-agent": "media-api",
    });
    expect(head).toBe(
      "GET /a/b.mp4?tag=12 HTTP/1.1\r\nhost: video.twimg.com:8443\r\nrange: bytes=0-99\r\nuser-agent: media-api\r\nconnection: close\r\n\r\n",
    );
  });

  it("says how long a POST's body is", () => {
    expect(requestHead("POST", new URL("https://www.threads.com/graphql/query"), {}, 12)).toBe(
      "POST /graphql/query HTTP/1.1\r\nhost: www.threads.com\r\ncontent-length: 12\r\nconnection: close\r\n\r\n",
    );
  });

  it("keeps its own framing headers and says a POST has no body", () => {
    const head = requestHead("POST", new URL("http://[::1]/token"), {
      Host: "evil.example",
      Connection: "keep-alive",
      "Content-Length": "9",
      authorization: "Bearer x",
    });
    expect(head).toBe(
      "POST /token HTTP/1.1\r\nhost: [::1]\r\nauthorization: Bearer x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
  });

  it.each([
    ["a value with CR LF", { range: "bytes=0-1\r\nx-injected: 1" }],
    ["a value with NUL", { range: "bytes=0\u0000" }],
    ["a name with a space", { "bad name": "1" }],
  ])("refuses %s", (_what, headers) => {
    expect(() => requestHead("GET", new URL("http://cdn.example/a"), headers)).toThrow(TypeError);
  });
});

describe("parseResponseHead()", () => {
  const head =
    "HTTP/1.1 206 Partial Content\r\nContent-Type: video/mp4\r\ncontent-length:  10 \r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n";

  it("reads the status and headers and says where the body starts", () => {
    const parsed = parseResponseHead(bytes(`${head}0123456789`))!;
    expect(parsed.status).toBe(206);
    expect(parsed.length).toBe(head.length);
    expect(parsed.headers.get("content-type")).toBe("video/mp4");
    expect(parsed.headers.get("content-length")).toBe("10");
    expect(parsed.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  it("waits while the head is incomplete, at every length", () => {
    for (let end = 0; end < head.length; end++) expect(parseResponseHead(bytes(head.slice(0, end)))).toBeNull();
  });

  it("takes a status line without a reason and HTTP/1.0", () => {
    expect(parseResponseHead(bytes("HTTP/1.0 200\r\n\r\n"))).toMatchObject({ status: 200, length: 16 });
  });

  it.each([
    ["a status line of another protocol", "ICY 200 OK\r\n\r\n"],
    ["a status outside 100-599", "HTTP/1.1 600 Odd\r\n\r\n"],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"],
    ["a folded header line", "HTTP/1.1 200 OK\r\nx-a: 1\r\n  continued\r\n\r\n"],
    ["a header name with a space", "HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n"],
  ])("refuses %s", (_what, text) => {
    expect(() => parseResponseHead(bytes(text))).toThrow(UpstreamProtocolError);
  });

  it("refuses a head that never ends within 32 KiB", () => {
    const endless = `HTTP/1.1 200 OK\r\n${"x-filler: 0123456789abcdef\r\n".repeat(1500)}`;
    expect(() => parseResponseHead(bytes(endless))).toThrow(UpstreamProtocolError);
  });
});

describe("bodyFraming()", () => {
  const framingOf = (method: string, text: string) => bodyFraming(method, parseResponseHead(bytes(`${text}\r\n`))!);

  it("reads the framing the head declares", () => {
    expect(framingOf("GET", "HTTP/1.1 200 OK\r\ncontent-length: 42\r\n")).toEqual({ kind: "length", length: 42 });
    expect(framingOf("GET", "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n")).toEqual({ kind: "chunked" });
    expect(framingOf("GET", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\n")).toEqual({
      kind: "until-close",
    });
    expect(framingOf("GET", "HTTP/1.1 200 OK\r\n")).toEqual({ kind: "until-close" });
  });

  it("has no body for HEAD, 1xx, 204 and 304, whatever the head says", () => {
    expect(framingOf("HEAD", "HTTP/1.1 200 OK\r\ncontent-length: 42\r\n")).toEqual({ kind: "none" });
    for (const status of [100, 204, 304]) {
      expect(framingOf("GET", `HTTP/1.1 ${status} X\r\ncontent-length: 42\r\n`)).toEqual({ kind: "none" });
    }
  });

  it.each([
    ["both Transfer-Encoding and Content-Length", "transfer-encoding: chunked\r\ncontent-length: 5\r\n"],
    ["two different lengths", "content-length: 5\r\ncontent-length: 6\r\n"],
    ["a repeated length", "content-length: 5\r\ncontent-length: 5\r\n"],
    ["a signed length", "content-length: +5\r\n"],
    ["a length past 15 digits", "content-length: 1234567890123456\r\n"],
  ])("refuses %s", (_what, fields) => {
    expect(() => framingOf("GET", `HTTP/1.1 200 OK\r\n${fields}`)).toThrow(UpstreamProtocolError);
  });
});

describe("ChunkedDecoder", () => {
  const body = "5;name=value\r\nhello\r\n19\r\n, chunked bodies of media\r\n0\r\nx-trailer: 1\r\n\r\nleftover";
  const expected = "hello, chunked bodies of media";

  const decodeInPieces = (text: string, size: number) => {
    const decoder = new ChunkedDecoder();
    const out: Buffer[] = [];
    for (let at = 0; at < text.length; at += size) out.push(...decoder.write(bytes(text.slice(at, at + size))));
    return { data: Buffer.concat(out).toString("latin1"), done: decoder.done };
  };

  it("decodes a body however it is split, and stops after the trailers", () => {
    for (const size of [1, 2, 3, 7, 16, body.length]) {
      expect(decodeInPieces(body, size)).toEqual({ data: expected, done: true });
    }
  });

  it("is not done before the last chunk's trailers end", () => {
    expect(decodeInPieces(body.slice(0, body.indexOf("0\r\n") + 3), 4)).toEqual({ data: expected, done: false });
  });

  it.each([
    ["a size that is not hex", "zz\r\nhello\r\n"],
    ["data longer than its size", "3\r\nhello\r\n"],
    ["a size line ended by a bare LF", "5\nhello\r\n"],
    ["a size too large to count exactly", "fffffffffffffff\r\n"],
    ["a size line without end", `5${" ".repeat(5000)}`],
  ])("refuses %s", (_what, text) => {
    expect(() => new ChunkedDecoder().write(bytes(text))).toThrow(UpstreamProtocolError);
  });
});
