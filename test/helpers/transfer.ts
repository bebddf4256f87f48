// One GET over a real socket, to see exactly how a body ended: in full as HTTP says a body ends
// (the chunked terminator, or all of Content-Length), or broken off.
import http from "node:http";

export interface Transfer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Whether the body ended as HTTP says a complete body ends. */
  complete: boolean;
  seconds: number;
}

export function transfer(url: string, key: string): Promise<Transfer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${key}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      let settled = false;
      const done = (complete: boolean) => {
        if (settled) return;
        settled = true;
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: Buffer.concat(chunks),
          complete,
          seconds: (Date.now() - started) / 1000,
        });
      };
      response.on("end", () => done(response.complete));
      response.on("error", () => done(false));
      response.on("aborted", () => done(false));
    });
    request.on("error", reject);
  });
}
