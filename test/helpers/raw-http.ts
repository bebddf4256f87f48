// Sends bytes no HTTP client would: a raw request over a plain TCP socket, read until the server
// closes. For malformed Host headers, request targets and methods.
import { connect } from "node:net";
import { scaled } from "./slowness.ts";

export interface RawAnswer {
  /** null when the connection closed without a status line. */
  status: number | null;
  head: string;
  body: string;
  /**
   * The server closed while bytes it had not read were still arriving, so the kernel reset the
   * connection: what came before the reset is above, and an answer may have been lost with it.
   */
  reset: boolean;
}

export function rawRequest(serverUrl: string, text: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(serverUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let received = "";
    let reset = false;
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET") reset = true;
      else reject(error);
    });
    socket.once("close", () => {
      const split = received.indexOf("\r\n\r\n");
      const head = split < 0 ? received : received.slice(0, split);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      resolve({
        status: status ? Number(status[1]) : null,
        head,
        body: split < 0 ? "" : received.slice(split + 4),
        reset,
      });
    });
    socket.setTimeout(
      scaled(10_000),
      () => socket.destroy(new Error(`no answer to ${JSON.stringify(text.slice(0, 60))}`)),
    );
  });
}

/** Requests the Fetch API cannot represent, each with the status the service answers. */
export const malformedRequests: { name: string; text: string; status: number }[] = [
  ...["", "a b", "u@x", "a:99999", "[", "a%b", "a:b:c", "x\u00e9"].map((host) => ({
    name: `Host: ${JSON.stringify(host)}`,
    text: `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    status: 400,
  })),
  {
    name: "absolute target with user:pass@",
    text: "GET http://user:pass@x/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    status: 400,
  },
  {
    name: "absolute target with user@",
    text: "GET http://u@127.0.0.1/api/v1/usage HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    status: 400,
  },
  { name: "TRACE", text: "TRACE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", status: 405 },
  { name: "TRACK", text: "TRACK /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", status: 405 },
  { name: "CONNECT", text: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", status: 405 },
];
