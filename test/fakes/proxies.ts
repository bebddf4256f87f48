// Stand-ins for an operator's OUTBOUND_PROXY on 127.0.0.1, logging what they are asked for: an
// HTTP proxy (CONNECT and absolute-form requests) and a SOCKS5 proxy (CONNECT, optionally with a
// user name and password).
import http from "node:http";
import net from "node:net";

export interface LoggingProxy {
  /** `http://[user:pass@]127.0.0.1:<port>` or `socks5://...` */
  url: string;
  /** `CONNECT host:port`, `GET http://host:port/path`, or for SOCKS5 `host:port`. */
  log: string[];
  /** The Proxy-Authorization (HTTP) or `user:password` (SOCKS5) of each request, in order. */
  credentials: (string | null)[];
  close(): Promise<void>;
}

function closer(server: net.Server, sockets: Set<net.Socket>): () => Promise<void> {
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

function splice(a: net.Socket, b: net.Socket): void {
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
  a.on("close", () => b.destroy());
  b.on("close", () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

export async function startHttpProxy(auth = ""): Promise<LoggingProxy> {
  const log: string[] = [];
  const credentials: (string | null)[] = [];
  const server = http.createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    credentials.push(req.headers["proxy-authorization"] ?? null);
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = http.request(new URL(req.url ?? "/"), { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connect", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    log.push(`CONNECT ${req.url}`);
    credentials.push(req.headers["proxy-authorization"] ?? null);
    const target = new URL(`http://${req.url}`);
    const upstream = net.connect(Number(target.port), target.hostname.replace(/^\[(.*)\]$/, "$1"), () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      splice(socket, upstream);
    });
    upstream.on("error", () => socket.destroy());
  });
  const close = closer(server, new Set());
  const port = await listen(server);
  return { url: `http://${auth ? `${auth}@` : ""}127.0.0.1:${port}`, log, credentials, close };
}

export async function startSocks5Proxy(user = "", password = ""): Promise<LoggingProxy> {
  const log: string[] = [];
  const credentials: (string | null)[] = [];
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    void handshake(socket).then((target) => {
      if (target === null) return void socket.destroy();
      log.push(target.label);
      const upstream = net.connect(target.port, target.host, () => {
        socket.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
        splice(socket, upstream);
      });
      upstream.on("error", () => socket.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
    });
  });

  // Reads exactly `size` bytes.
  async function read(socket: net.Socket, size: number): Promise<Buffer> {
    for (;;) {
      const chunk: Buffer | null = socket.read(size);
      if (chunk !== null) return chunk;
      await new Promise((resolve) => socket.once("readable", resolve));
    }
  }

  async function handshake(socket: net.Socket): Promise<{ host: string; port: number; label: string } | null> {
    const [version, count] = await read(socket, 2);
    const methods = [...(await read(socket, count!))];
    const wanted = user === "" ? 0 : 2;
    if (version !== 5 || !methods.includes(wanted)) return null;
    socket.write(Buffer.from([5, wanted]));
    if (wanted === 2) {
      const [, userLength] = await read(socket, 2);
      const givenUser = (await read(socket, userLength!)).toString();
      const [passLength] = await read(socket, 1);
      const givenPassword = (await read(socket, passLength!)).toString();
      credentials.push(`${givenUser}:${givenPassword}`);
      const ok = givenUser === user && givenPassword === password;
      socket.write(Buffer.from([1, ok ? 0 : 1]));
      if (!ok) return null;
    } else credentials.push(null);
    const [, command, , type] = await read(socket, 4);
    if (command !== 1) return null;
    let host: string;
    if (type === 1) host = [...(await read(socket, 4))].join(".");
    else if (type === 3) host = (await read(socket, (await read(socket, 1))[0]!)).toString();
    else host = ((await read(socket, 16)).toString("hex").match(/.{4}/g) ?? []).join(":");
    const port = (await read(socket, 2)).readUInt16BE();
    return { host, port, label: `${host}:${port}` };
  }

  const close = closer(server, new Set());
  const port = await listen(server);
  const auth = user === "" ? "" : `${encodeURIComponent(user)}:${encodeURIComponent(password)}@`;
  return { url: `socks5://${auth}127.0.0.1:${port}`, log, credentials, close };
}
