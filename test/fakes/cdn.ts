// A fake media CDN on 127.0.0.1 for relay and black-box tests. Every file holds the same
// deterministic bytes (fakeBytes), so a test can hash what it received.
//
// Paths compose from left to right:
//   /file/<size>[/<name>]   a file of <size> bytes; ?type=<content type> (default video/mp4),
//                           ?chunked=1 for no Content-Length. Range, HEAD, ETag, Last-Modified.
//   /status/<code>          answers <code> with a short text body
//   /redirect?to=<url>      302 to <url> (&status=301|303|307|308 for another code)
//   /hops/<n>/<rest>        <n> redirects through https://<publicHost>/hops/..., then /<rest>
//   /loop                   redirects to https://<publicHost>/loop, for ever
//   /hangup                 closes the connection without an answer
//   /delay/<ms>/<rest>      waits <ms> before sending anything of /<rest>
//   /reset/<n>/<rest>       sends the head and the first <n> body bytes of /<rest>, then resets
//   /stall/<n>/<rest>       sends the head and the first <n> body bytes of /<rest>, then nothing,
//                           keeping the connection open
// Each request is recorded with its outcome: "finished" when the whole response went out,
// "closed" when the connection closed first (the client went away, or /reset/).

import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface CdnRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  outcome: Promise<"finished" | "closed">;
}

export interface FakeCdn {
  /** http://127.0.0.1:<port>, to use as an origin override for the public hosts. */
  origin: string;
  requests: CdnRequest[];
  close(): Promise<void>;
}

export interface FakeCdnOptions {
  /** The host that redirect targets name; map it to `origin` in the relay's overrides. */
  publicHost?: string;
}

interface Plan {
  delayMs: number;
  /** Bytes sent before the body breaks off; `stall` keeps the connection open, `reset` closes it. */
  cutAfter: number | null;
  cut: "reset" | "stall";
}

const CHUNK = 64 * 1024;
const LAST_MODIFIED = "Wed, 01 May 2024 12:00:00 GMT";

/** Bytes [start, end) of every fake file. */
export function fakeBytes(start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(end - start);
  for (let i = start; i < end; i++) {
    const x = Math.imul(i ^ (i >>> 16), 0x45d9f3b);
    out[i - start] = (x ^ (x >>> 16)) & 0xff;
  }
  return out;
}

/** SHA-256 (hex) of bytes [start, end) of a fake file. */
export function fakeSha256(start: number, end: number): string {
  const hash = createHash("sha256");
  for (let at = start; at < end; at += CHUNK) hash.update(fakeBytes(at, Math.min(end, at + CHUNK)));
  return hash.digest("hex");
}

export async function startFakeCdn(options: FakeCdnOptions = {}): Promise<FakeCdn> {
  const publicHost = options.publicHost ?? "video.twimg.com";
  const requests: CdnRequest[] = [];
  const server = http.createServer((req, res) => {
    const outcome = new Promise<"finished" | "closed">((resolve) =>
      res.on("close", () => resolve(res.writableFinished ? "finished" : "closed"))
    );
    requests.push({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, outcome });
    const url = new URL(req.url ?? "/", "http://fake");
    void route(
      url.pathname.split("/").slice(1),
      url,
      req,
      res,
      { delayMs: 0, cutAfter: null, cut: "reset" },
      publicHost,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function route(
  segments: string[],
  url: URL,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  plan: Plan,
  publicHost: string,
): Promise<void> {
  const [head, arg = "", ...rest] = segments;
  switch (head) {
    case "delay":
      return route(rest, url, req, res, { ...plan, delayMs: plan.delayMs + Number(arg) }, publicHost);
    case "reset":
    case "stall":
      return route(rest, url, req, res, { ...plan, cutAfter: Number(arg), cut: head }, publicHost);
    case "hops": {
      if (Number(arg) === 0) return route(rest, url, req, res, plan, publicHost);
      const next = `/hops/${Number(arg) - 1}/${rest.join("/")}${url.search}`;
      return send(res, plan, 302, { location: `https://${publicHost}${next}` });
    }
    case "loop":
      return send(res, plan, 302, { location: `https://${publicHost}/loop` });
    case "redirect":
      return send(res, plan, Number(url.searchParams.get("status") ?? 302), {
        location: url.searchParams.get("to") ?? "/",
      });
    case "hangup":
      await sleep(plan.delayMs);
      return void req.socket.destroy();
    case "status":
      return send(res, plan, Number(arg), { "content-type": "text/plain" }, Buffer.from(`status ${arg}\n`));
    case "file":
      return serveFile(Number(arg), url, req, res, plan);
    default:
      return send(res, plan, 404, { "content-type": "text/plain" }, Buffer.from("no such fake route\n"));
  }
}

async function serveFile(size: number, url: URL, req: http.IncomingMessage, res: http.ServerResponse, plan: Plan) {
  const headers: http.OutgoingHttpHeaders = {
    "content-type": url.searchParams.get("type") ?? "video/mp4",
    "accept-ranges": "bytes",
    etag: `"fake-${size}"`,
    "last-modified": LAST_MODIFIED,
    // What a CDN might say; the relay must replace it with its own name.
    "content-disposition": 'attachment; filename="cdn-name.bin"',
  };
  const range = parseRange(req.headers.range, size);
  if (range === "unsatisfiable") return send(res, plan, 416, { "content-range": `bytes */${size}` });
  const [start, end] = range ?? [0, size];
  if (range) headers["content-range"] = `bytes ${start}-${end - 1}/${size}`;
  if (url.searchParams.get("chunked") !== "1") headers["content-length"] = end - start;
  await sleep(plan.delayMs);
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === "HEAD") return void res.end();
  await streamBytes(res, start, plan.cutAfter === null ? end : Math.min(end, start + plan.cutAfter));
  if (plan.cutAfter === null) res.end();
  else if (plan.cut === "reset") res.socket?.destroy();
}

// Writes bytes [start, end) respecting backpressure, so a huge file costs no memory.
async function streamBytes(res: http.ServerResponse, start: number, end: number): Promise<void> {
  for (let at = start; at < end && !res.destroyed; at += CHUNK) {
    const chunk = fakeBytes(at, Math.min(end, at + CHUNK));
    const flushed = new Promise<void>((resolve) => res.write(chunk, () => resolve()));
    if (res.writableNeedDrain) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
    if (at + CHUNK >= end) await flushed;
  }
}

async function send(
  res: http.ServerResponse,
  plan: Plan,
  status: number,
  headers: http.OutgoingHttpHeaders,
  body?: Buffer,
) {
  await sleep(plan.delayMs);
  res.writeHead(status, { ...headers, "content-length": body?.length ?? 0 });
  res.end(body);
}

function parseRange(header: string | undefined, size: number): [number, number] | "unsatisfiable" | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  const [, from = "", to = ""] = match;
  const start = from === "" ? Math.max(0, size - Number(to)) : Number(from);
  const end = from === "" || to === "" ? size : Math.min(size, Number(to) + 1);
  return start < end ? [start, end] : "unsatisfiable";
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
