// What a newcomer meets first, through the built service over HTTP: answers that name the real
// mistake, and log lines an operator can follow from a request's X-Request-Id to its cause.
// answers.test.ts runs them on the Node that runs the tests, answers.runtime.ts on Bun and Deno
// (`npm run test:runtimes`).
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { settled, until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

interface LogLine {
  level: string;
  msg: string;
  requestId?: string;
  [field: string]: unknown;
}

/** `ownParser`: the runtime's server hands what its HTTP parser refuses to the service (Node, and Bun's node:http); Deno's answers it alone, with a bare 400. */
export interface AnswersRuntime {
  name: string;
  command: string[];
  ownParser: boolean;
}

const spacedTarget =
  "GET /api/v1/post?url=https://example.com/a b c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
const longTarget = `GET /api/v1/post?url=https%3A%2F%2Fexample.com%2F${
  "a".repeat(100_000)
} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;

export function answersSuite({ name, command, ownParser }: AnswersRuntime): void {
  describe(`the answers of the service under ${name}`, () => {
    let service: RunningService;
    let dataDir: string;
    let key: string;
    let nowhere: number;
    let site: MediaSite;
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
    const logLines = (): LogLine[] =>
      service.output.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as LogLine);

    beforeAll(async () => {
      [nowhere, site] = await Promise.all([closedPort(), startMediaSite()]);
      dataDir = mkdtempSync(join(tmpdir(), `answers-${name}-`));
      service = await startService(
        {
          DATA_DIR: dataDir,
          LOG_LEVEL: "debug",
          // Page hosts the operator allowed that cannot be reached: nothing listens, the name does not resolve.
          EXTRA_PAGE_HOSTS: `127.0.0.1:${nowhere},nothing.invalid,${site.host}`,
          X_SYNDICATION_URL: `http://127.0.0.1:${nowhere}`,
          X_GRAPHQL_URL: "off",
        },
        command,
      );
      await runAdmin(
        ["users", "create", "--email", "newcomer@example.com"],
        { DATA_DIR: dataDir },
        "a long enough password\n",
      );
      key =
        (await runAdmin(["keys", "create", "--email", "newcomer@example.com", "--tier", "GOLD"], { DATA_DIR: dataDir }))
          .stdout.trim();
      // The tools' probe runs in the background and may log once it is done: from here on the log is the requests'.
      await settled(async () => (await fetch(`${service.url}/readyz`)).status === 200, 10_000, 100);
      // So does the extraction host once it is warm (seconds on a busy machine): wait for its line too.
      await until(
        "the extraction host's ready line",
        () => logLines().some((line) => line.msg.startsWith("extraction host ready")) || undefined,
        120_000,
      );
    }, scaled(180_000));
    afterAll(async () => {
      await service?.stop();
      await site?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it("says what `index` must be when it is given but is no whole number from 1 in digits", async () => {
      const media = encodeURIComponent("https://video.twimg.com/ext_tw_video/1/pu/vid/clip.mp4");
      for (const index of ["abc", "0x1", "%2B1", "01", "%201", "1%0A", "0"]) {
        const response = await get(`/api/v1/download?url=${media}&index=${index}`);
        expect(response.status, index).toBe(400);
        const problem = await response.json();
        expect(problem.code, index).toBe("invalid_parameter");
        expect(problem.detail, index).toBe(
          "`index` must be a whole number from 1, in digits only: the number of an item in the record's `media` list, such as `index=2`.",
        );
      }
      // A good index is read, and the request goes on to its next check.
      const good = await get(`/api/v1/download?url=${encodeURIComponent("https://example.com/a.mp4")}&index=1`);
      expect((await good.json()).code).toBe("host_not_allowed");
    });

    it.runIf(ownParser)(
      "gets Deno's own bare 400 for a request line or a request head its parser refuses (docs/runtimes.md), where Node and Bun answer problem+json",
      async () => {
        const spaced = await rawRequest(service.url, spacedTarget);
        expect([spaced.status, spaced.body]).toEqual([400, ""]);
        // Deno answers and closes while most of a 100 kB head is still arriving: the kernel then
        // resets the connection, which may take the 400 with it. Never a problem+json, never a 2xx.
        const long = await rawRequest(service.url, longTarget);
        if (!(long.reset && long.status === null)) expect([long.status, long.body]).toEqual([400, ""]);
      },
    );

    it.skipIf(ownParser)(
      "says that the request line is not valid when `url` holds unencoded spaces, and that it must be URL-encoded",
      async () => {
        const answer = await rawRequest(service.url, spacedTarget);
        expect(answer.status).toBe(400);
        const problem = JSON.parse(answer.body);
        expect(problem).toMatchObject({ title: "Bad Request", status: 400, code: "invalid_request" });
        expect(problem.detail).toMatch(/^The request line is not valid HTTP.*URL-encode .*the `url`/);
        expect(problem.detail).not.toContain("Host header");
        // Its answer has an id like every other, and the log line about it names the id.
        const requestId = /\r\nx-request-id: ([\w-]+)/i.exec(answer.head)?.[1];
        expect(requestId).toBeDefined();
        expect(logLines().find((line) => line.requestId === requestId)).toMatchObject({ msg: "unservable request" });
      },
    );

    it.skipIf(ownParser)(
      "answers a 100 kB `url` with 431 under its standard title, saying how long a `url` may be",
      async () => {
        const answer = await rawRequest(service.url, longTarget);
        expect(answer.status).toBe(431);
        expect(JSON.parse(answer.body)).toEqual({
          type: "about:blank",
          title: "Request Header Fields Too Large",
          status: 431,
          detail:
            "The request line and headers are larger than this server reads. The `url` parameter may hold at most 4096 characters.",
          code: "headers_too_large",
        });
      },
    );

    it("says of a `post` whose page could not be read that the post could not be read, not that media were not delivered", async () => {
      const response = await get(`/api/v1/post?url=${encodeURIComponent(`http://127.0.0.1:${nowhere}/watch`)}`);
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({
        code: "upstream_failed",
        detail: "The post could not be read from the source site (yt-dlp exit 1); try again later.",
      });
    });

    it("logs a failed `post` with its X-Request-Id on every line about it, and the cause the egress gate met, whole", async () => {
      const before = logLines().length;
      // A line of an earlier request may still come (the end of its body), with that request's id.
      const earlier = new Set(logLines().map((line) => line.requestId));
      const response = await get(`/api/v1/post?url=${encodeURIComponent(`http://127.0.0.1:${nowhere}/watch?v=1`)}`);
      expect(response.status).toBe(502);
      const requestId = response.headers.get("x-request-id")!;
      await response.arrayBuffer();
      // The request's line, written at the body's end, may follow the answer: wait for it, not for a clock.
      await expect.poll(() => logLines().some((line) => line.requestId === requestId && line.msg === "request"), {
        timeout: scaled(30_000),
      }).toBe(true);
      const lines = logLines()
        .slice(before)
        .filter((line) => line.requestId === undefined || !earlier.has(line.requestId));
      expect(lines.map((line) => line.msg).slice(0, 2)).toEqual(["upstream failure", "request"]);
      for (const line of lines) expect(line.requestId, line.msg).toBe(requestId);
      const cause = String(lines[0]!.cause);
      expect(cause).toContain(`the egress gate could not connect to 127.0.0.1:${nowhere}: connection refused`);
      expect(cause).not.toMatch(/please report|\.\.\.$/i);
    });

    it("names the real cause of each failure to connect in the log: host not found, connection refused, the egress rules", async () => {
      const causeOf = async (path: string, requestId: string) => {
        const response = await get(path, { "x-request-id": requestId });
        await response.arrayBuffer();
        const line = logLines().find((each) =>
          each.requestId === requestId && (each.msg === "upstream failure" || each.msg === "refused")
        );
        return { status: response.status, cause: String(line?.cause) };
      };
      expect(
        await causeOf(`/api/v1/post?url=${encodeURIComponent("http://nothing.invalid/watch")}`, `${name}-unknown-host`),
      ).toMatchObject({
        status: 502,
        cause: expect.stringMatching(/^the egress gate could not connect to nothing\.invalid:80: host not found/),
      });
      // X's API over the runtime's HTTP client, whose error says only "fetch failed" on its face.
      expect(
        await causeOf(`/api/v1/post?url=${encodeURIComponent("https://x.com/jack/status/20")}`, `${name}-x-refused`),
      )
        .toMatchObject({
          status: 502,
          cause: expect.stringMatching(/^connection refused: /),
        });
      // A page whose video lies on a private address: ffmpeg is refused by the gate.
      expect(await causeOf(`/api/v1/download?url=${encodeURIComponent(site.pages.privateMedia)}`, `${name}-private`))
        .toMatchObject({
          status: 403,
          cause:
            "refused by the egress rules: 127.0.0.2 resolves to 127.0.0.2, and only public addresses may be reached",
        });
    });
  });
}
