// A listener that must never be reached: the egress tests point redirects, segments and links at
// it and then assert it saw no connection at all (not even one that sent nothing).
import net from "node:net";

export interface Canary {
  /** `http://<address>:<port>` */
  origin: string;
  /** `<address>:<port>` */
  host: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Listens on `address` (127.0.0.2 by default: loopback, yet no host the tests trust). */
export async function startCanary(address = "127.0.0.2"): Promise<Canary> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.end("HTTP/1.1 200 OK\r\ncontent-type: video/mp4\r\ncontent-length: 6\r\nconnection: close\r\n\r\ncanary");
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    origin: `http://${address}:${port}`,
    host: `${address}:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
