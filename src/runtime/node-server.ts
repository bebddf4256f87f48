// Adapts node:http to the Fetch handler. The response body is written chunk by chunk with
// backpressure; a client that goes away aborts the Request's signal and cancels the body,
// and a body that fails mid-way destroys the socket, so the client sees a broken transfer
// rather than a short file that looks complete. Bun runs this adapter too (see bun.ts).
// With `limits`, a connection has REQUEST_HEAD_TIMEOUT_S to send its request head, and the
// connections held open are capped in all and per client (connection-caps.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import { finished, pipeline } from "node:stream/promises";
import { type ClientProgress, progressWatch, stallPeriodMs } from "../http/client-stall.ts";
import { requestIdFrom } from "../http/request-id.ts";
import { methodNotServed, parserRefusal, requestUrl, unservable } from "../http/unservable.ts";
import { createLogger, errorText, type Logger } from "../log.ts";
import type { AddressInfo } from "node:net";
import { connectionCounter } from "./connection-caps.ts";
import { clientProgressOf } from "./node/client-progress.ts";
import type { ConnectionLimits, NativeBody, Reply, Serve, Served } from "./serve.ts";

/** How often node:http looks for connections past their head timeout (its default, 30 s, would add up to that much). */
const TIMEOUT_CHECK_MS = 1_000;

export const serveNode: Serve = async (served, on, log = createLogger("warn"), limits) => {
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  let noteRequest = (_req: IncomingMessage, _res: ServerResponse) => {};
  const server = createServer({ connectionsCheckingInterval: TIMEOUT_CHECK_MS }, (req, res) => {
    // A request that arrives on a kept-alive connection while we stop is the connection's last.
    if (closing) res.shouldKeepAlive = false;
    const done = handle(served, req, res, log)
      .catch((error: unknown) => {
        // Whatever fails while serving one request ends that request, never the process.
        log.error("serving a request failed", { requestId: requestIdOf(req), error: errorText(error) });
        if (res.headersSent) res.destroy();
        else return send(res, served.refuse(error, requestIdOf(req)));
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
    // After handle() made the Request, whose body stream then has its listener on `req` before ours.
    noteRequest(req, res);
  });
  server.on(
    "clientError",
    (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(served, error, socket, log),
  );
  // Without a listener node:http drops a CONNECT without a word; it is a method we do not serve.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    const requestId = requestIdFrom(null);
    log.info("unservable request", { requestId, method: req.method?.slice(0, 16) });
    void answerAndClose(socket, served.refuse(methodNotServed(req.method ?? "CONNECT"), requestId));
  });
  server.keepAliveTimeout = 5_000;
  if (limits) noteRequest = limitConnections(server, limits, log);
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

/**
 * node:http's own head timeout (answered 408 by answerClientError), the caps on open connections
 * and the bound on slow request bodies (connection-caps.ts). Returns what the request handler
 * tells of each request, so the caps know which connections are being answered.
 */
function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  log: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  server.headersTimeout = limits.headTimeoutMs;
  // node:http refuses a whole-request timeout shorter than the head's.
  server.requestTimeout = Math.max(server.requestTimeout, limits.headTimeoutMs);
  const counter = connectionCounter(limits, log);
  const current = new WeakMap<
    Socket,
    { req: IncomingMessage; res: ServerResponse; startedAt: number; readBefore: number; bodyBytes: number }
  >();
  server.on("connection", (socket: Socket) => {
    const closed = counter.admit(socket.remoteAddress, {
      answering: () => {
        const exchange = current.get(socket);
        return exchange !== undefined && exchange.req.complete && !exchange.res.writableFinished;
      },
      // Node counts on the socket, where a body the app does not read (node:http then reads it to its
      // end) arrives all the same; Bun's socket counts nothing, so its body's chunks are counted.
      bodyArriving: () => {
        const exchange = current.get(socket);
        if (exchange === undefined || exchange.req.complete) return null;
        return {
          startedAt: exchange.startedAt,
          received: Math.max(socket.bytesRead - exchange.readBefore, exchange.bodyBytes),
        };
      },
      close: () => socket.destroy(),
    });
    // Closed before a byte is read: an answer would cost what the cap is there to save.
    if (closed === null) return void socket.destroy();
    socket.once("close", closed);
  });
  const sweep = setInterval(() => counter.sweep(), TIMEOUT_CHECK_MS);
  sweep.unref();
  server.once("close", () => clearInterval(sweep));
  return (req, res) => {
    const exchange = { req, res, startedAt: Date.now(), readBefore: req.socket.bytesRead, bodyBytes: 0 };
    current.set(req.socket, exchange);
    // A second listener beside the Request body's: it sees the same chunks, and pauses with it.
    if (!req.complete) req.on("data", (chunk: Buffer) => (exchange.bodyBytes += chunk.byteLength));
  };
}

async function handle(served: Served, req: IncomingMessage, res: ServerResponse, log: Logger): Promise<void> {
  const controller = new AbortController();
  const requestId = requestIdOf(req);
  let request: Request;
  try {
    request = toRequest(req, controller.signal);
  } catch (error) {
    log.info("unservable request", { requestId, method: req.method?.slice(0, 16), error: errorText(error) });
    return send(res, served.refuse(unservable(error), requestId));
  }
  let reply: Reply | undefined;
  let failure: { error: unknown } | undefined;
  const clientProgress = clientProgressOf(req.socket);
  res.once("close", () => {
    // Told before the signal aborts, so what waits on the response learns how its body ended. A
    // client gone before the reply is told by the signal alone.
    reply?.done(
      res.writableFinished
        ? { ended: "complete" }
        : !failure
        ? { ended: "cut by client" }
        : { ended: "cut by error", error: failure.error },
    );
    if (!res.writableFinished) controller.abort();
  });
  try {
    reply = await served.answer(request, { peer: req.socket.remoteAddress, requestId, clientProgress });
  } catch (error) {
    // The app turns its own errors into answers; this is the last line of defence, and the sink logs it.
    return send(res, served.refuse(error, requestId));
  }
  const onFailure = (error: unknown) => (failure ??= { error });
  await send(res, reply.response, {
    headOnly: req.method === "HEAD",
    signal: controller.signal,
    onFailure,
    native: reply.nativeBody,
    clientProgress,
  });
}

/** How a response is sent: `onFailure` learns the error that cut its body, before the socket is destroyed. */
interface Sending {
  headOnly?: boolean;
  signal?: AbortSignal;
  onFailure?: (error: unknown) => void;
  native?: NativeBody | undefined;
  clientProgress?: ClientProgress;
}

/** Writes the response. */
async function send(
  res: ServerResponse,
  response: Response,
  { headOnly = false, signal, onFailure = () => {}, native, clientProgress }: Sending = {},
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === "set-cookie" ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, headers);
  if (!response.body || headOnly) {
    void response.body?.cancel();
    res.end();
  } else {
    const nodeBody = native?.body instanceof Readable ? native.body : undefined;
    // The fast path: a relayed upstream body goes straight from socket to socket. Its error is
    // caught where it is emitted, before the pipeline destroys the response.
    nodeBody?.once("error", onFailure);
    if (nodeBody) {
      cutWhenClientStalls(res, native?.stallTimeoutMs, onFailure, clientProgress);
      await pipeline(nodeBody, res).catch(() => res.destroy());
    } else await writeBody(response.body, res, signal, onFailure);
  }
  // Until the last byte is handed to the socket, this response counts as in flight.
  await finished(res).catch(() => {});
}

/**
 * What node:http's own parser refused (a method it does not know, a header it cannot read) gets a
 * problem+json answer like every other refusal, instead of Node's bare 400.
 */
function answerClientError(served: Served, error: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  if (!socket.writable || error.code === "ECONNRESET") return void socket.destroy();
  // The answer carries an id like every other, so the client can name it and the log line be found.
  const requestId = requestIdFrom(null);
  log.info("unservable request", { requestId, error: `${error.code ?? "?"}: ${error.message}` });
  void answerAndClose(socket, served.refuse(parserRefusal(error.code), requestId));
}

/** How long an answer written on a raw socket may take to leave before the socket is closed anyway. */
const ANSWER_LINGER_MS = 2_000;

/**
 * Writes `response` as a whole HTTP response on a socket node:http no longer serves and closes the
 * socket once it is out. Only ending it would leave our side half-closed (FIN-WAIT-2), holding its
 * descriptor for as long as the client keeps its own end open.
 */
async function answerAndClose(socket: Duplex, response: Response): Promise<void> {
  const linger = setTimeout(() => socket.destroy(), ANSWER_LINGER_MS);
  socket.once("close", () => clearTimeout(linger));
  const body = Buffer.from(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set("content-length", String(body.byteLength));
  headers.set("connection", "close");
  const head = [...headers].map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(
    Buffer.concat([
      Buffer.from(`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}\r\n${head}\r\n`, "latin1"),
      body,
    ]),
    () => socket.destroy(),
  );
}

/**
 * For a body node:http sends natively (no Web stream to watch, see client-stall.ts): cuts the
 * response when the client has taken nothing for `timeoutMs` while bytes wait for it. The socket's
 * timer is reset by every write the kernel takes, and readings of `progress` (the kernel's count
 * past the buffers) tell a slow reader a full buffer hides, so neither is cut; the timer also
 * fires when the source is silent, which is the upstream's own timer to judge.
 */
function cutWhenClientStalls(
  res: ServerResponse,
  timeoutMs: number | undefined,
  onFailure: (error: unknown) => void,
  progress?: ClientProgress,
): void {
  if (timeoutMs === undefined) return;
  const period = stallPeriodMs(timeoutMs, progress);
  const client = progressWatch(progress);
  let quietMs = 0;
  // A "timeout" listener on the response keeps node:http from destroying the socket itself.
  res.setTimeout(period, () => {
    const waiting = res.writableNeedDrain || (res.socket?.writableLength ?? 0) > 0;
    if (!waiting) client.reset();
    quietMs = waiting && !client.moved() ? quietMs + period : 0;
    if (quietMs < timeoutMs) return void res.setTimeout(period);
    const error = new Error(`The client took nothing for ${timeoutMs} ms.`);
    onFailure(error);
    res.destroy(error);
  });
}

const requestIds = new WeakMap<IncomingMessage, string>();

/** The request's id, chosen once: the app is handed it with the Request, so the app's log lines and the adapter's agree. */
function requestIdOf(req: IncomingMessage): string {
  let id = requestIds.get(req);
  if (id === undefined) {
    const given = req.headers["x-request-id"];
    id = requestIdFrom(typeof given === "string" ? given : null);
    requestIds.set(req, id);
  }
  return id;
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const method = req.method ?? "GET";
  const url = requestUrl(method, req.url ?? "/", req.headers.host ?? "localhost");
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    signal,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
    // @ts-expect-error: Node's fetch needs duplex for a streamed request body; the DOM types lack it.
    duplex: hasBody ? "half" : undefined,
  });
}

async function writeBody(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  signal: AbortSignal | undefined,
  onFailure: (error: unknown) => void,
): Promise<void> {
  const reader = body.getReader();
  // A body that errors while we wait for the client to drain (the client-stall cut of
  // client-stall.ts) ends the response now: the loop would not read again before the client does.
  reader.closed.catch((error: unknown) => {
    onFailure(error);
    res.destroy();
  });
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    // After the client went away the error is our own cancel, and the close already said so.
    onFailure(error);
    res.destroy();
  } finally {
    signal?.removeEventListener("abort", stop);
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
