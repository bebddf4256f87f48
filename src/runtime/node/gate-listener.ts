// The egress gate's loopback listener on node:net: reads each request head, and moves the bytes
// of the connections src/net/egress-gate.ts lets through.
import net from "node:net";
import type { GateConnection, ListenLoopback, Traffic } from "../../net/egress-gate.ts";
import { headLength } from "../../net/outbound-proxy.ts";
import { connectToProxy, openTunnel, readFrom } from "./tunnels.ts";

const headTimeoutMs = 30_000;

export const listenLoopback: ListenLoopback = (onRequest, maxHeadBytes) => {
  const server = net.createServer((client) => void accept(client));
  // The gate must not keep the process alive on its own (tests build apps without stopping them).
  server.unref();

  async function accept(client: net.Socket): Promise<void> {
    client.on("error", () => {});
    client.setTimeout(headTimeoutMs, () => client.destroy());
    let head: string;
    try {
      head = (await readFrom(client, headLength, maxHeadBytes)).toString("latin1");
    } catch {
      return void client.destroy();
    }
    client.setTimeout(0);
    onRequest(head, connectionOf(client));
  }

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () => new Promise<void>((closed) => server.close(() => closed())),
      }));
  });
};

function connectionOf(client: net.Socket): GateConnection {
  let upstream: net.Socket | undefined;
  return {
    end: (text) => void client.end(text),
    async forward(route, opening, traffic) {
      const opened = "tunnel" in route
        ? await openTunnel(route.tunnel.host, route.tunnel.port, route.tunnel.proxy)
        : await connectToProxy(route.proxy);
      upstream = opened;
      // Cut while the connection was being opened (its session ended).
      if (client.destroyed) return void opened.destroy();
      if (opening.toClient !== "") client.write(opening.toClient);
      splice(client, opened, opening.toSource, traffic);
    },
    destroy() {
      client.destroy();
      upstream?.destroy();
    },
    onClose: (listener) => void client.once("close", listener),
  };
}

// Both directions at once; either side closing ends the other.
function splice(client: net.Socket, upstream: net.Socket, requestHead: string, traffic: Traffic): void {
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
  // A clean end is passed on by pipe() once the bytes are out; anything else cuts the client.
  upstream.on("close", () => upstream.readableEnded || client.destroy());
  client.on("close", () => upstream.destroy());
  if (requestHead !== "") upstream.write(requestHead);
  // Counted for the session's budget, whose cut may destroy both sockets here.
  upstream.on("data", (chunk: Buffer) => traffic.fromSource(chunk.length));
  client.on("data", () => traffic.fromClient());
  upstream.pipe(client);
  client.pipe(upstream);
  client.resume();
}
