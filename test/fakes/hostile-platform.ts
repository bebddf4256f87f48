// A platform's host gone bad, for the outbound client: it answers every path with a redirect to
// where the test says, or with 300 MB of a playlist or a page poured as fast as it is read (made as
// it goes, never held whole), and records what each request carried.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { pour } from "../helpers/pour.ts";

export type HostileAnswer =
  /** 302 to `location`, or to where it says for the request's path; a relative one is resolved against that path. */
  | { kind: "redirect"; location: string | ((path: string) => string) }
  /** 200, `head` and then filler lines up to 300 MB in all, with its Content-Length. */
  | { kind: "pour"; head: string; contentType: string };

export interface HostilePlatform {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  answer(answer: HostileAnswer): void;
  /** The path and headers of every request so far. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Bytes of bodies written so far. */
  sent(): number;
  /** Open connections. */
  connections(): number;
  close(): Promise<void>;
}

export const pouredBytes = 300 * 2 ** 20;
const filler = Buffer.from(`#${"x".repeat(1022)}\n`.repeat(64));

export async function startHostilePlatform(): Promise<HostilePlatform> {
  let current: HostileAnswer = { kind: "redirect", location: "/" };
  let sent = 0;
  const requests: HostilePlatform["requests"] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push({ path, headers: req.headers });
    req.resume();
    if (current.kind === "redirect") {
      const { location } = current;
      return void res.writeHead(302, { location: typeof location === "string" ? location : location(path) }).end();
    }
    const head = Buffer.from(current.head);
    res.writeHead(200, { "content-type": current.contentType, "content-length": String(pouredBytes) });
    sent += head.length;
    res.write(head);
    pour(res, filler, (bytes) => (sent += bytes), pouredBytes - head.length);
  });
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    answer: (answer) => void (current = answer),
    requests,
    sent: () => sent,
    connections: () => open.size,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
