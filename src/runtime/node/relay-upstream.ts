// Upstream client on node:http/https: on Node 20 it relays ~30 % faster and with less CPU than
// fetch or undici.request (docs/relay-costs.md). The body is exposed twice over the same bytes: as the
// raw IncomingMessage (for the Node adapter's pipeline fast path) and as a lazy Web stream.

import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Duplex, Readable } from "node:stream";
import tls from "node:tls";
import { bareHost, type OutboundProxy } from "../../media/outbound-proxy.ts";
import { openTunnel } from "./tunnels.ts";
import type { UpstreamClient } from "../../media/relay-upstream.ts";

/** The node:http client, connecting directly or, with `proxy`, through the operator's proxy. */
export function createNodeUpstream(proxy: OutboundProxy | null = null): UpstreamClient {
  return ({ url, method, headers, signal, address, idleTimeoutMs }) =>
    new Promise((resolve, reject) => {
      const transport = url.protocol === "https:" ? https : http;
      const connection = proxy === null ? (address === undefined ? {} : { lookup: pinnedLookup(address) }) : { createConnection: tunnelled(url, address, proxy) };
      const request = transport.request(url, { method, headers, signal, ...connection }, (response) => {
        // Body errors are read from `response.errored` by whoever consumes it; without a listener
        // an upstream reset would crash the process.
        response.on("error", () => {});
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const item of Array.isArray(value) ? value : [value ?? ""]) responseHeaders.append(name, item);
        }
        if (method === "HEAD") {
          response.resume();
          return resolve({ status: response.statusCode ?? 502, headers: responseHeaders, body: null, ended: Promise.resolve() });
        }
        if (idleTimeoutMs !== undefined) cutWhenIdle(request, response, idleTimeoutMs);
        resolve({
          status: response.statusCode ?? 502,
          headers: responseHeaders,
          body: lazyWebStream(response),
          native: response,
          ended: new Promise((ended) => response.once("close", () => ended())),
        });
      });
      request.on("error", reject);
      request.end();
    });
}

export const nodeUpstream: UpstreamClient = createNodeUpstream();

// The socket goes quiet both when the source stalls and when the reader stops reading; only the
// first is cut. A slow reader leaves bytes waiting in the body's buffer.
function cutWhenIdle(request: http.ClientRequest, response: http.IncomingMessage, idleTimeoutMs: number): void {
  request.setTimeout(idleTimeoutMs, () => {
    if (response.readableLength > 0) return void request.setTimeout(idleTimeoutMs);
    request.destroy(new Error(`The media host sent nothing for ${idleTimeoutMs} ms.`));
  });
}

// A connection through the operator's proxy to the checked address (or the trusted host), with
// TLS inside it for https under the URL's own name.
function tunnelled(url: URL, address: string | undefined, proxy: OutboundProxy) {
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  return (_options: unknown, done: (error: Error | null, socket: Duplex) => void): undefined => {
    openTunnel(address ?? bareHost(url.hostname), port, proxy).then(
      (socket) => {
        // The handshake left it paused, and node:http only adds a listener; HTTP servers do not speak first.
        socket.resume();
        done(null, url.protocol === "https:" ? tls.connect({ socket, servername: url.hostname, ALPNProtocols: ["http/1.1"] }) : socket);
      },
      // node:http reads only the error when there is one.
      (error: Error) => done(error, undefined as never),
    );
    return undefined;
  };
}

// Connect to the address the relay already checked instead of asking DNS again.
function pinnedLookup(address: string): LookupFunction {
  const family = address.includes(":") ? 6 : 4;
  return (_host, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

// Unlike Readable.toWeb, this reads nothing until the first pull, so the Readable stays untouched
// when the adapter pipes it directly. One chunk per pull: backpressure stays with the socket.
function lazyWebStream(readable: Readable): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (readable.errored) throw readable.errored;
          const chunk: Buffer | null = readable.read();
          if (chunk !== null) return controller.enqueue(chunk);
          if (readable.readableEnded) return controller.close();
          if (readable.destroyed) throw new Error("The upstream connection closed before the end of the body.");
          await nextEvent(readable);
        }
      },
      cancel(reason) {
        readable.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

function nextEvent(readable: Readable): Promise<void> {
  return new Promise((resolve) => {
    const events = ["readable", "end", "error", "close"] as const;
    const done = () => {
      for (const event of events) readable.off(event, done);
      resolve();
    };
    for (const event of events) readable.on(event, done);
  });
}
