import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { serveNode } from "../../src/runtime/node-server.ts";
import { servedFetch } from "../../src/app/error-sink.ts";
import type { FetchHandler, RunningServer } from "../../src/runtime/serve.ts";
import { malformedRequests, rawRequest } from "../helpers/raw-http.ts";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(fetch: FetchHandler): Promise<{ url: string; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("debug", (line) => lines.push(JSON.parse(line)));
  server = await serveNode(servedFetch(fetch, log), { port: 0, hostname: "127.0.0.1" }, log);
  return { url: server.address, lines };
}

describe("serveNode", () => {
  it("answers every request the Fetch API cannot represent with problem+json, logs it, and serves the next", async () => {
    const { url, lines } = await serve(async () => new Response("fine"));
    for (const { name, text, status } of malformedRequests) {
      const answer = await rawRequest(url, text);
      expect(answer.status, name).toBe(status);
      expect(answer.head.toLowerCase(), name).toContain("content-type: application/problem+json");
      expect(JSON.parse(answer.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, "")).status, name).toBe(status);
    }
    expect(lines.filter((line) => line.msg === "unservable request")).toHaveLength(malformedRequests.length);
    expect(await (await fetch(url)).text()).toBe("fine");
  });

  it("answers 500 problem+json and logs what the handler threw, an Error or not", async () => {
    const { url, lines } = await serve(async (request) => {
      throw new URL(request.url).pathname === "/plain" ? { message: "disk full", code: 28 } : new Error("boom");
    });
    for (const path of ["/error", "/plain"]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect((await response.json()).code).toBe("internal_error");
    }
    // Logged by the error sink, with the stack when there is one.
    expect(lines.filter((line) => line.level === "error").map((line) => String(line.error).split("\n")[0])).toEqual([
      "Error: boom",
      "disk full",
    ]);
    expect((await rawRequest(url, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).status).toBe(500);
  });
});
