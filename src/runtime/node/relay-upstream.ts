// Upstream client on node:net and node:tls, for Node and Bun: one HTTP/1.1 exchange per connection,
// whose body is read straight off the socket. node:http's client runs every body byte through its
// parser and IncomingMessage; without them a relayed GiB costs half the CPU and moves 1.5-2x faster
// (docs/relay-costs.md). The body is exposed twice over the same bytes: as a Node Readable (for the
// Node adapter's pipeline fast path) and as a lazy Web stream.

import net, { isIP, type Socket } from "node:net";
import { Readable } from "node:stream";
import tls from "node:tls";
import { bareHost, type OutboundProxy } from "../../net/outbound-proxy.ts";
import type { UpstreamClient, UpstreamResponse } from "../../net/relay-upstream.ts";
import {
  type BodyFraming,
  bodyFraming,
  ChunkedDecoder,
  parseResponseHead,
  requestHead,
  type ResponseHead,
} from "./http1.ts";
import { openTunnel, readFrom } from "./tunnels.ts";
import { relayedBytes } from "./young-gc.ts";

/**
 * The client, connecting directly (to the checked address when one is given) or, with `proxy`,
 * through the operator's proxy. `tlsOptions` adds to the TLS defaults (a test's own CA).
 */
export function createNodeUpstream(
  proxy: OutboundProxy | null = null,
  tlsOptions: tls.ConnectionOptions = {},
): UpstreamClient {
  return async ({ url, method, headers, body: requestBody, signal, address, idleTimeoutMs }) => {
    const head = requestHead(method, url, headers, requestBody?.byteLength);
    const socket = await connect(url, address, proxy, tlsOptions, signal);
    // Whoever reads the body learns of its errors from it (`errored`); an error event with no
    // listener would crash the process.
    socket.on("error", () => {});
    const abort = () => socket.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", abort, { once: true });
    try {
      socket.write(head);
      if (requestBody !== undefined) socket.write(requestBody);
      const response = await readResponse(socket);
      const framing = bodyFraming(method, response);
      if (framing.kind === "none") {
        signal.removeEventListener("abort", abort);
        socket.destroy();
        return { status: response.status, headers: response.headers, body: null, ended: Promise.resolve() };
      }
      const body = new UpstreamBody(socket, framing, idleTimeoutMs);
      body.on("error", () => {});
      const ended = new Promise<void>((resolve) => body.once("close", resolve));
      void ended.then(() => signal.removeEventListener("abort", abort));
      return {
        status: response.status,
        headers: response.headers,
        body: lazyWebStream(body),
        native: body,
        ended,
      } satisfies UpstreamResponse;
    } catch (error) {
      signal.removeEventListener("abort", abort);
      socket.destroy();
      throw error;
    }
  };
}

export const nodeUpstream: UpstreamClient = createNodeUpstream();

/**
 * A socket on its way to the URL's host (or the checked `address`, or through the proxy's tunnel),
 * with TLS under the URL's own name for https. Until it connects, writes wait and failures arrive
 * as its "error".
 */
async function connect(
  url: URL,
  address: string | undefined,
  proxy: OutboundProxy | null,
  tlsOptions: tls.ConnectionOptions,
  signal: AbortSignal,
): Promise<Socket> {
  signal.throwIfAborted();
  const host = bareHost(url.hostname);
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const tunnel = proxy === null ? null : await untilAborted(openTunnel(address ?? host, port, proxy), signal);
  if (url.protocol !== "https:") return tunnel ?? net.connect({ host: address ?? host, port });
  // The certificate is checked against the URL's name, also when the connection goes to an address.
  const secure = {
    ...tlsOptions,
    servername: isIP(host) ? undefined : host,
    checkServerIdentity: (_: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(host, cert),
    ALPNProtocols: ["http/1.1"],
  };
  if (tunnel === null) return tls.connect({ ...secure, host: address ?? host, port });
  // The tunnel's handshake left it paused; TLS reads from it.
  tunnel.resume();
  return tls.connect({ ...secure, socket: tunnel });
}

/** The tunnel, or the abort's reason if that comes first (a tunnel that opens later is closed). */
function untilAborted(opening: Promise<Socket>, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    opening.then(
      (socket) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) socket.destroy();
        else resolve(socket);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The final response head (informational 1xx heads are skipped); the body's bytes stay in the socket. */
async function readResponse(socket: Socket): Promise<ResponseHead> {
  for (;;) {
    // Parsed as the bytes arrive, so that a malformed head fails at once; the head readFrom ends on is kept.
    const parsed: { head: ResponseHead | null } = { head: null };
    await readFrom(
      socket,
      (buffer) => (parsed.head = parseResponseHead(buffer))?.length ?? -1,
      Infinity,
      "The media host closed the connection before its response head.",
    );
    if (parsed.head!.status >= 200) return parsed.head!;
  }
}

/**
 * The body of one response, framed as its head says. It ends only after the whole body arrived;
 * a connection that closes sooner errors it, so a cut transfer never looks like a complete one.
 */
class UpstreamBody extends Readable {
  #socket: Socket;
  #framing: BodyFraming;
  #decoder: ChunkedDecoder | null;
  /** Body bytes still due under a Content-Length. */
  #due: number;
  #complete = false;

  constructor(socket: Socket, framing: BodyFraming, idleTimeoutMs: number | undefined) {
    // One socket read's worth (64 KiB): a slow client holds no more than that here per download.
    super({ highWaterMark: 64 * 1024 });
    this.#socket = socket;
    this.#framing = framing;
    this.#decoder = framing.kind === "chunked" ? new ChunkedDecoder() : null;
    this.#due = framing.kind === "length" ? framing.length : Infinity;
    socket.on("data", (chunk: Buffer) => this.#take(chunk));
    socket.on("end", () => this.#sourceEnded());
    socket.on("close", () => this.#sourceEnded());
    socket.on("error", (error) => this.destroy(error));
    if (idleTimeoutMs !== undefined) this.#cutWhenIdle(idleTimeoutMs);
    if (this.#due === 0) this.#finish();
    else socket.resume();
  }

  override _read(): void {
    if (!this.#complete) this.#socket.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#socket.destroy();
    callback(error);
  }

  #take(chunk: Buffer): void {
    if (this.#complete) return;
    relayedBytes(chunk.length);
    let pieces: Buffer[];
    try {
      pieces = this.#decoder
        ? this.#decoder.write(chunk)
        : [chunk.length > this.#due ? chunk.subarray(0, this.#due) : chunk];
    } catch (error) {
      return void this.destroy(error as Error);
    }
    let wantsMore = true;
    for (const piece of pieces) {
      this.#due -= piece.length;
      wantsMore = this.push(piece);
    }
    if (this.#due === 0 || this.#decoder?.done) this.#finish();
    else if (!wantsMore) this.#socket.pause();
  }

  #finish(): void {
    this.#complete = true;
    this.push(null);
    // One exchange per connection: whatever else the server sends is not ours.
    this.#socket.destroy();
  }

  #sourceEnded(): void {
    if (this.#complete || this.destroyed) return;
    if (this.#framing.kind === "until-close") return this.#finish();
    this.destroy(new Error("The media host closed the connection before the end of the body."));
  }

  // The socket goes quiet both when the source stalls and when the reader stops reading; only the
  // first is cut. A slow reader leaves bytes waiting in this body's buffer.
  #cutWhenIdle(idleTimeoutMs: number): void {
    this.#socket.setTimeout(idleTimeoutMs);
    this.#socket.on("timeout", () => {
      if (this.readableLength > 0) return void this.#socket.setTimeout(idleTimeoutMs);
      this.destroy(new Error(`The media host sent nothing for ${idleTimeoutMs} ms.`));
    });
  }
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
