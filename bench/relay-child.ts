// One relay variant per process, so bench/relay.mjs can read its CPU time and peak RSS from /proc.
// Usage (after esbuild bundling): node child.mjs <variant> <port> <origin url of the big file>
// Variants: origin (a Node origin, used when nginx is missing), pipe (the ten-line node:http
// relay to beat), relay (relayMedia + nodeUpstream + the Node-body fast path), relay-web (the same
// through Web Streams), relay-fetch (relayMedia + fetchUpstream through Web Streams).

import http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { nativeBodyOf } from "../src/http/native-body.ts";
import { relayMedia } from "../src/media/relay.ts";
import { fetchUpstream, type UpstreamClient } from "../src/net/relay-upstream.ts";
import { resolveWithDns } from "../src/runtime/node/dns.ts";
import { nodeUpstream } from "../src/runtime/node/relay-upstream.ts";

const [variant = "", port = "0", target = ""] = process.argv.slice(2);
const origin = new URL(target);

function originServer(size: number): http.Server {
  const block = Buffer.alloc(1024 * 1024, 7);
  return http.createServer(async (_req, res) => {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": size, "accept-ranges": "bytes" });
    for (let sent = 0; sent < size && !res.destroyed; sent += block.length) {
      if (!res.write(block.subarray(0, Math.min(block.length, size - sent)))) {
        await new Promise((resolve) => res.once("drain", resolve));
      }
    }
    res.end();
  });
}

// The baseline from docs/relay-costs.md: a node:http request piped into the response.
function pipeServer(): http.Server {
  return http.createServer((req, res) => {
    const upstream = http.get(origin, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
  });
}

// A minimal Node adapter for a Fetch-style handler, as src/runtime/node.ts might do it.
function relayServer(upstream: UpstreamClient, useNodeBody: boolean): http.Server {
  const originOverrides = new Map([["video.twimg.com", origin.origin]]);
  return http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const response = await relayMedia(
        {
          url: new URL(`https://video.twimg.com${origin.pathname}`),
          method: req.method === "HEAD" ? "HEAD" : "GET",
          range: req.headers.range ?? null,
          signal: abort.signal,
        },
        { upstream, originOverrides, maxBytes: 2 ** 40, firstByteTimeoutMs: 10_000, resolveHost: resolveWithDns },
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      const nodeBody = useNodeBody ? (nativeBodyOf(response) as Readable | undefined) : undefined;
      const body = nodeBody ??
        (response.body ? Readable.fromWeb(response.body as import("node:stream/web").ReadableStream) : null);
      if (body) await pipeline(body, res);
      else res.end();
    } catch {
      res.destroy();
    }
  });
}

const servers: Record<string, () => http.Server> = {
  origin: () => originServer(Number(origin.searchParams.get("size"))),
  pipe: pipeServer,
  relay: () => relayServer(nodeUpstream, true),
  "relay-web": () => relayServer(nodeUpstream, false),
  "relay-fetch": () => relayServer(fetchUpstream, false),
};

const make = servers[variant];
if (!make) throw new Error(`unknown variant ${variant}`);
make().listen(Number(port), "127.0.0.1", () => process.send?.("ready"));
