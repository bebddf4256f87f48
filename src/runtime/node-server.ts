// Adapts node:http to the Fetch handler. The response body is written chunk by chunk with
// backpressure; a client that goes away aborts the Request's signal and cancels the body,
// and a body that fails mid-way destroys the socket, so the client sees a broken transfer
// rather than a short file that looks complete. Bun runs this adapter too (see bun.ts).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { finished, pipeline } from "node:stream/promises";
import { nodeBodyOf } from "../http/node-body.ts";
import { responseDone } from "../http/response-done.ts";
import type { AddressInfo } from "node:net";
import type { FetchHandler, Serve } from "./serve.ts";

export const serveNode: Serve = async (fetch, on) => {
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  const server = createServer((req, res) => {
    // A request that arrives on a kept-alive connection while we stop is the connection's last.
    if (closing) res.shouldKeepAlive = false;
    const done = handle(fetch, req, res).finally(() => inFlight.delete(done));
    inFlight.add(done);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if ("path" in on) server.listen(on.path, resolve);
    else server.listen(on.port, on.hostname, resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? (address as AddressInfo).port : undefined;
  return {
    address: "path" in on ? on.path : `http://${on.hostname.includes(":") ? `[${on.hostname}]` : on.hostname}:${port}`,
    port,
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      while (inFlight.size > 0) await Promise.all(inFlight);
      // Kept-alive connections whose last response is sent hold the server open until they time out.
      server.closeAllConnections();
      await closed;
    },
    cut: () => server.closeAllConnections(),
  };
};

async function handle(fetch: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const controller = new AbortController();
  const request = toRequest(req, controller.signal);
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
    responseDone(request);
  });
  let response: Response;
  try {
    response = await fetch(request);
  } catch {
    // The app turns its own errors into responses; this is the last line of defence.
    response = new Response(null, { status: 500 });
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === "set-cookie" ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, headers);
  await sendBody(response, req, res, controller.signal);
  // Until the last byte is handed to the socket, this response counts as in flight.
  await finished(res).catch(() => {});
}

async function sendBody(response: Response, req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (!response.body || req.method === "HEAD") {
    void response.body?.cancel();
    res.end();
    return;
  }
  const nodeBody = nodeBodyOf(response);
  // The fast path: a relayed upstream body goes straight from socket to socket.
  if (nodeBody) await pipeline(nodeBody, res).catch(() => res.destroy());
  else await writeBody(response.body, res, signal);
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const host = req.headers.host ?? "localhost";
  const url = new URL(req.url ?? "/", `http://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    signal,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
    // @ts-expect-error: Node's fetch needs duplex for a streamed request body; the DOM types lack it.
    duplex: hasBody ? "half" : undefined,
  });
}

async function writeBody(body: ReadableStream<Uint8Array>, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    // A client that left before the answer was ready: "close" has already been and will not come again.
    if (res.destroyed) return reject(new Error("client went away"));
    const onDrain = () => {
      res.off("close", onClose);
      resolve();
    };
    const onClose = () => {
      res.off("drain", onDrain);
      reject(new Error("client went away"));
    };
    res.once("drain", onDrain);
    res.once("close", onClose);
  });
}
