// Tunnels to the operator's OUTBOUND_PROXY over node:net and node:tls: the sockets, sending the
// handshakes of src/net/outbound-proxy.ts and reading their answers.
import net from "node:net";
import tls from "node:tls";
import {
  checkConnectAnswer,
  connectRequest,
  fixedLength,
  handshakeTimeoutMs,
  headLength,
  type OutboundProxy,
  socks5,
} from "../../net/outbound-proxy.ts";

/** A connected socket to the http(s) proxy itself (for CONNECT, or for absolute-form requests). */
export function connectToProxy(proxy: OutboundProxy): Promise<net.Socket> {
  if (proxy.protocol === "https:") {
    return connected(
      tls.connect({ host: proxy.host, port: proxy.port, servername: net.isIP(proxy.host) ? undefined : proxy.host }),
      "secureConnect",
    );
  }
  return connected(net.connect({ host: proxy.host, port: proxy.port }), "connect");
}

/**
 * A socket whose bytes reach host:port, through `proxy` when one is given. The caller passes an
 * address it has already checked, so the proxy connects exactly there.
 */
export async function openTunnel(host: string, port: number, proxy: OutboundProxy | null): Promise<net.Socket> {
  if (proxy === null) return connected(net.connect({ host, port }), "connect");
  const socket = proxy.protocol === "socks5:"
    ? await connected(net.connect({ host: proxy.host, port: proxy.port }), "connect")
    : await connectToProxy(proxy);
  socket.setTimeout(handshakeTimeoutMs, () => socket.destroy(new Error("The outbound proxy did not answer in time.")));
  try {
    if (proxy.protocol === "socks5:") await socks5Connect(socket, proxy, host, port);
    else {
      socket.write(connectRequest(proxy, host, port));
      checkConnectAnswer((await readFrom(socket, headLength)).toString("latin1"));
    }
  } catch (error) {
    socket.destroy();
    throw error;
  }
  socket.setTimeout(0);
  return socket;
}

function connected<T extends net.Socket>(socket: T, event: "connect" | "secureConnect"): Promise<T> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    socket.once("error", onError);
    socket.once(event, () => {
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

async function socks5Connect(socket: net.Socket, proxy: OutboundProxy, host: string, port: number): Promise<void> {
  socket.write(socks5.greeting(proxy));
  socks5.checkGreetingAnswer(proxy, await readFrom(socket, fixedLength(2)));
  const credentials = socks5.credentials(proxy);
  if (credentials !== null) {
    socket.write(credentials);
    socks5.checkCredentialsAnswer(await readFrom(socket, fixedLength(2)));
  }
  socket.write(socks5.connect(host, port));
  socks5.checkConnectAnswer(await readFrom(socket, socks5.connectAnswerLength));
}

/**
 * Reads from `socket` until `complete` says how many bytes make the message (or throws: it is
 * malformed); what came after them is put back for whoever reads next.
 */
export function readFrom(
  socket: net.Socket,
  complete: (buffer: Buffer) => number,
  maxBytes = 16 * 1024,
  closedMessage = "The connection closed during the handshake.",
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffer: Buffer = Buffer.alloc(0);
    const cleanup = () => {
      socket.off("data", onData);
      socket.off("error", onEnd);
      socket.off("close", onEnd);
    };
    const onEnd = (error?: unknown) => {
      cleanup();
      reject(error instanceof Error ? error : new Error(closedMessage));
    };
    const onData = (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      let size: number;
      try {
        size = complete(buffer);
      } catch (error) {
        cleanup();
        socket.pause();
        return reject(error);
      }
      if (size < 0 && buffer.length <= maxBytes) return;
      cleanup();
      socket.pause();
      if (size < 0) return reject(new Error("The handshake message is too large."));
      if (buffer.length > size) socket.unshift(buffer.subarray(size));
      resolve(buffer.subarray(0, size));
    };
    socket.on("data", onData);
    socket.once("error", onEnd);
    socket.once("close", onEnd);
    // An earlier read paused the socket, and a paused socket does not flow for a new listener.
    socket.resume();
  });
}
