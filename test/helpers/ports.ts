import { createServer } from "node:net";
import type { AddressInfo } from "node:net";

/** A port nothing listens on now: bound once on 127.0.0.1, then closed (for a server that must listen on a port named in advance). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
