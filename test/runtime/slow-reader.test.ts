// A client that reads a download slowly but steadily is not cut, however long the socket buffers
// hide it from the server's program; one that reads nothing is. Through Node's adapter on
// loopback, with the client-stall cut of a download on a Web-stream body and on a native one (a
// relay node:http pipes itself), an endless source behind each, and a client reading at a steady
// pace through a small receive buffer, as on a real network. Before the adapter read the kernel's
// count, the slow client was cut: the server's send buffer held megabytes, so the adapter did not
// pull for longer than the timeout.
import { spawn } from "node:child_process";
import { connect, type Socket } from "node:net";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { cutWhenClientStalls } from "../../src/http/client-stall.ts";
import { nativeBodyReply, withNativeBody } from "../../src/http/native-body.ts";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { RunningServer, Served } from "../../src/runtime/serve.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const TIMEOUT_MS = 2_500;
const SLOW_READER = fileURLToPath(new URL("../fakes/slow-reader.py", import.meta.url));
const CHUNK = new Uint8Array(64 * 1024).fill(120);

let server: RunningServer | undefined;
afterEach(async () => {
  server?.cut();
  await server?.close();
  server = undefined;
});

type BodyKind = "web" | "native";

/** An endless download, cut when its client stalls; `source.cancelled` says when its source was stopped. */
async function serveEndless(kind: BodyKind): Promise<{ port: number; source: { cancelled: boolean } }> {
  const source = { cancelled: false };
  const served: Served = {
    async answer(_request, arrival) {
      const headers = { "content-type": "video/mp4" };
      const response = kind === "web"
        ? new Response(
          new ReadableStream({
            pull: (controller) => controller.enqueue(CHUNK),
            cancel: () => void (source.cancelled = true),
          }),
          { headers },
        )
        : nativeEndless(headers, source);
      const watched = cutWhenClientStalls(response, TIMEOUT_MS, arrival.clientProgress);
      return { response: watched, nativeBody: nativeBodyReply(watched), done: () => {} };
    },
    refuse: () => new Response(null, { status: 500 }),
  };
  server = await serveNode(served, { port: 0, hostname: "127.0.0.1" });
  return { port: server.port!, source };
}

/** A relay's shape: a Node Readable the adapter pipes, with its Web stream beside it. */
function nativeEndless(headers: Record<string, string>, source: { cancelled: boolean }): Response {
  const readable = new Readable({
    read() {
      this.push(CHUNK);
    },
  });
  readable.once("close", () => void (source.cancelled = true));
  return withNativeBody(new Response(Readable.toWeb(readable) as ReadableStream<Uint8Array>, { headers }), readable);
}

/** A raw GET whose bytes the test takes itself (the socket paused, so the kernel's buffers fill). */
function rawGet(port: number): { socket: Socket; ended: Promise<void> } {
  const socket = connect(port, "127.0.0.1");
  socket.write("GET / HTTP/1.1\r\nHost: test\r\n\r\n");
  socket.pause();
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  return { socket, ended };
}

/** A client reading `rate` bytes a second through a small receive buffer (fakes/slow-reader.py), and what it has said. */
function slowReader(port: number, rate: number) {
  const reader = spawn("python3", [SLOW_READER, String(port), String(rate)]);
  const seen = { read: 0, cut: false, exited: false };
  reader.stdout.setEncoding("utf8").on("data", (text: string) => {
    for (const line of text.split("\n").filter(Boolean)) {
      line === "cut" ? (seen.cut = true) : (seen.read = Number(line));
    }
  });
  reader.once("close", () => (seen.exited = true));
  return { seen, stop: () => reader.kill() };
}

describe.each<BodyKind>(["web", "native"])("the client-stall cut on Node, %s body", (kind) => {
  it("lets a client that reads 10 KB/s go on for over three timeouts while the server's buffers hold megabytes", {
    timeout: scaled(60_000),
  }, async () => {
    const { port, source } = await serveEndless(kind);
    const rate = 10_000;
    const reader = slowReader(port, rate);
    try {
      // What it reads in three timeouts; a cut stops its source at once, while the client still
      // reads what the kernel had sent before it sees the end.
      await until(
        "the slow client to read three timeouts' worth",
        () => reader.seen.read >= (rate * 3 * TIMEOUT_MS) / 1000 || reader.seen.exited,
        50_000,
      );
      expect(source.cancelled).toBe(false);
      expect(reader.seen).toMatchObject({ cut: false, exited: false });
    } finally {
      reader.stop();
    }
  });

  it(
    "cuts a client that reads nothing once the timeout has passed, and stops its source",
    { timeout: scaled(60_000) },
    async () => {
      const { port, source } = await serveEndless(kind);
      const started = performance.now();
      const { socket, ended } = rawGet(port);
      await until("the stalled client's source to be stopped", () => source.cancelled, 50_000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
      // The client sees the end of the connection once it reads what its buffers hold.
      socket.resume();
      await ended;
    },
  );
});
