// The relay's own upstream client (src/runtime/node/relay-upstream.ts) against servers that send
// exactly the bytes a test scripts: what it sends, where a body ends, what it refuses, and TLS
// checked against the URL's name when the connection goes to a pinned address.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamRequest } from "../../src/net/relay-upstream.ts";
import { createNodeUpstream, nodeUpstream } from "../../src/runtime/node/relay-upstream.ts";
import { scaled } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

interface ScriptedServer {
  port: number;
  /** The request heads received, in order. */
  heads: string[];
  /** Resolves once the connection of the last request has closed. */
  closed(): Promise<void>;
  close(): Promise<void>;
}

/** A server that reads each request head and answers with `answer`'s bytes, then leaves the socket to it. */
async function scriptedServer(
  answer: (socket: net.Socket) => void,
  secure?: { key: Buffer; cert: Buffer },
): Promise<ScriptedServer> {
  const heads: string[] = [];
  let lastClosed = Promise.resolve();
  const onConnection = (socket: net.Socket) => {
    lastClosed = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {});
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (!received.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      heads.push(received);
      answer(socket);
    };
    socket.on("data", onData);
  };
  const server = secure ? tls.createServer(secure, onConnection) : net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    heads,
    closed: () => lastClosed,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const request = (url: string, extra: Partial<UpstreamRequest> = {}): UpstreamRequest => ({
  url: new URL(url),
  method: "GET",
  headers: { "user-agent": "media-api" },
  signal: new AbortController().signal,
  ...extra,
});

async function text(body: ReadableStream<Uint8Array> | null): Promise<string> {
  return new Response(body).text();
}

describe("the node upstream client", () => {
  const servers: ScriptedServer[] = [];
  const serve = async (answer: (socket: net.Socket) => void) => {
    const server = await scriptedServer(answer);
    servers.push(server);
    return { server, url: `http://127.0.0.1:${server.port}` };
  };
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it("sends one request that asks the server to close, and stops the body at its length", async () => {
    const { server, url } = await serve((socket) =>
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello, and bytes past the length")
    );
    const response = await nodeUpstream(request(`${url}/media/a.mp4?x=1`, { headers: { range: "bytes=0-4" } }));
    expect(response.status).toBe(200);
    expect(await text(response.body)).toBe("hello");
    await response.ended;
    expect(server.heads).toEqual([
      `GET /media/a.mp4?x=1 HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nrange: bytes=0-4\r\nconnection: close\r\n\r\n`,
    ]);
  });

  it("errors the body when the connection ends cleanly before the declared length", async () => {
    const { url } = await serve((socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b"));
    const response = await nodeUpstream(request(`${url}/a`));
    await expect(text(response.body)).rejects.toThrow(/closed the connection before the end of the body/);
  });

  it("errors the native body too, so the adapter cuts its response", async () => {
    const { url } = await serve((socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b"));
    const response = await nodeUpstream(request(`${url}/a`));
    const native = response.native as NodeJS.ReadableStream;
    const chunks: Buffer[] = [];
    await expect(
      new Promise((resolve, reject) => {
        native.on("data", (chunk: Buffer) => chunks.push(chunk));
        native.on("end", resolve);
        native.on("error", reject);
      }),
    ).rejects.toThrow();
    expect(Buffer.concat(chunks).toString()).toBe("only ten b");
  });

  it("decodes a chunked body that arrives in pieces, and reads a body without length to the close", async () => {
    const { url: chunked } = await serve((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel");
      setTimeout(() => socket.end("lo\r\n6\r\n world\r\n0\r\n\r\n"), 20);
    });
    expect(await text((await nodeUpstream(request(`${chunked}/a`))).body)).toBe("hello world");
    const { url: untilClose } = await serve((socket) => socket.end("HTTP/1.1 200 OK\r\n\r\nto the end"));
    expect(await text((await nodeUpstream(request(`${untilClose}/a`))).body)).toBe("to the end");
  });

  it("skips an informational head and has no body for HEAD", async () => {
    const { url } = await serve((socket) =>
      socket.end("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello")
    );
    expect(await text((await nodeUpstream(request(`${url}/a`))).body)).toBe("hello");
    const head = await nodeUpstream(request(`${url}/a`, { method: "HEAD" }));
    expect(head).toMatchObject({ status: 200, body: null });
    expect(head.headers.get("content-length")).toBe("5");
  });

  it.each([
    ["a malformed head", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", false, /malformed header line/],
    [
      "two framings at once",
      "HTTP/1.1 200 OK\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\nhello",
      false,
      /both Transfer-Encoding and Content-Length/,
    ],
    [
      "a connection closed before the head",
      "HTTP/1.1 200 OK\r\n",
      true,
      /closed the connection before its response head/,
    ],
  ])("rejects %s and closes the connection", async (_what, answer, hangUp, message) => {
    const { server, url } = await serve((socket) => (hangUp ? socket.end(answer) : socket.write(answer)));
    await expect(nodeUpstream(request(`${url}/a`))).rejects.toThrow(message);
    await server.closed();
  });

  it("closes the connection when the signal aborts before the head", async () => {
    const { server, url } = await serve(() => {});
    const controller = new AbortController();
    const answer = nodeUpstream(request(`${url}/a`, { signal: controller.signal }));
    // Aborted once the server has the request: before that there is no connection to close.
    await until("the request at the server", () => server.heads.length === 1);
    controller.abort(new Error("gave up"));
    await expect(answer).rejects.toThrow("gave up");
    await server.closed();
  });

  describe("over TLS", () => {
    let dir: string;
    let server: ScriptedServer;
    let ca: Buffer;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "upstream-tls-"));
      const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
      execFileSync("openssl", [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=media.test",
        "-addext",
        "subjectAltName=DNS:media.test",
        "-days",
        "1",
        "-keyout",
        key,
        "-out",
        cert,
      ], { stdio: "ignore" });
      ca = readFileSync(cert);
      server = await scriptedServer((socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecret"), {
        key: readFileSync(key),
        cert: ca,
      });
    }, scaled(30_000));
    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("connects to the pinned address and checks the certificate against the URL's name", async () => {
      const client = createNodeUpstream(null, { ca });
      const response = await client(request(`https://media.test:${server.port}/a`, { address: "127.0.0.1" }));
      expect(await text(response.body)).toBe("secret");
      expect(server.heads.at(-1)).toContain(`host: media.test:${server.port}\r\n`);
    });

    it("refuses a certificate for another name, and one it cannot trust", async () => {
      await expect(
        createNodeUpstream(null, { ca })(request(`https://other.test:${server.port}/a`, { address: "127.0.0.1" })),
      ).rejects.toThrow(/other\.test/);
      await expect(nodeUpstream(request(`https://media.test:${server.port}/a`, { address: "127.0.0.1" }))).rejects
        .toThrow(/self[- ]signed/);
    });
  });
});
