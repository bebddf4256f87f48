// A form post whose body the client cuts off, through the real Node server: a client abort,
// logged at info, never an unhandled error or a 500.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveNode } from "../../src/runtime/node-server.ts";
import type { Served } from "../../src/runtime/serve.ts";
import { buildTestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { settled } from "../helpers/until.ts";

describe("a form post cut off by the client", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("pglite");
  });
  afterAll(() => store?.close());

  it("is a client abort logged at info, not a 500", async () => {
    const { app, logLines } = buildTestApp(store.db);
    let arrived!: () => void;
    const answering = new Promise<void>((resolve) => (arrived = resolve));
    // The app, telling when it has the request: the client hangs up only then, as a slow server may not have it sooner.
    const served: Served = {
      answer: (request, arrival) => (arrived(), app.answer(request, arrival)),
      refuse: (error, requestId) => app.refuse(error, requestId),
    };
    const server = await serveNode(served, { port: 0, hostname: "127.0.0.1" });
    try {
      const { port } = new URL(server.address);
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(
        "POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n" +
          "Sec-Fetch-Site: same-origin\r\nX-Request-Id: cut-form\r\n\r\nemail=owner%40example.com&pass",
      );
      await answering;
      socket.destroy();
      const entries = () => logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const line = (msg: string) => entries().find((entry) => entry.requestId === "cut-form" && entry.msg === msg);
      await settled(() => line("request") !== undefined, 2_000, 20);
      expect(line("request")).toMatchObject({ level: "info", route: "/sign-in", status: 400 });
      expect(line("refused")).toMatchObject({ level: "info", code: "form_cut_off", cause: expect.any(String) });
      expect(entries().filter((entry) => entry.level === "error")).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
