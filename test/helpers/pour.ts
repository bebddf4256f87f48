// A hostile server's body: `filler` written over and over as fast as the client reads it (on each
// drain), to `limit` bytes or without end, each write told to `count`.
import type { ServerResponse } from "node:http";

export function pour(res: ServerResponse, filler: Buffer, count: (bytes: number) => void, limit = Infinity): void {
  let written = 0;
  const more = () => {
    while (written < limit && !res.destroyed) {
      const chunk = filler.subarray(0, Math.min(filler.length, limit - written));
      written += chunk.length;
      count(chunk.length);
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    if (written >= limit) res.end();
  };
  more();
}
