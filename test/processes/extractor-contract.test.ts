// One contract for both extractors (issue 34): the same jobs, run by the tool's program and by a
// fork of the warm extraction host, answer the same: a description, a failure's log excerpt with
// its first error line wherever it was, and the memory ceiling (issue 32) as 502 memory_exceeded
// for a page that never ends, a 400 MB page and gallery-dl on a JSON answer that never ends,
// after which the extractor answers again and nothing of the job is left running.
import { readFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { createLogger } from "../../src/log.ts";
import { workerOptions } from "../../src/platforms/tools/ytdlp/run.ts";
import { createExtractionHost, type ExtractionHost } from "../../src/processes/extraction-host.ts";
import { createCliExtractor, type Extractor } from "../../src/processes/extractor.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";
import { nodeToolRuns } from "../../src/runtime/node/tool-runs.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const memoryLimitBytes = 320 * 2 ** 20;
const timeoutMs = 90_000;

/** Writes `piece` for as long as the reader takes it, as fast as it does. */
function flood(res: ServerResponse, piece: Buffer, limit = Infinity) {
  let sent = 0;
  const more = () => {
    while (sent < limit) {
      sent += piece.byteLength;
      if (!res.write(piece)) return void res.once("drain", more);
    }
    res.end();
  };
  res.on("error", () => {});
  more();
}

async function startSite() {
  const sockets = new Set<Socket>();
  const page =
    `<!DOCTYPE html><html><head><title>a page</title></head><body><video src="/clip.mp4"></video></body></html>`;
  // Players of other sites embedded: the generic extractor lists them (without reading them, with --flat-playlist).
  const embeds =
    `<!DOCTYPE html><html><head><title>embeds</title></head><body><iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe><script src="https://content.jwplatform.com/players/nPripu9l-ALJ3XQCI.js"></script></body></html>`;
  const text = Buffer.from(`<p>${"a".repeat(65_530)}</p>\n`);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url!, "http://site").pathname;
    if (path === "/page.html") return void res.writeHead(200, { "content-type": "text/html" }).end(page);
    if (path === "/embeds.html") return void res.writeHead(200, { "content-type": "text/html" }).end(embeds);
    if (path === "/endless.html") return flood(res.writeHead(200, { "content-type": "text/html" }), text);
    if (path === "/400mb.html") {
      return flood(
        res.writeHead(200, { "content-type": "text/html", "content-length": String(400 * 2 ** 20) }),
        text.subarray(0, 2 ** 16),
        400 * 2 ** 20,
      );
    }
    // gallery-dl's Mastodon extractor reads a status from /api/v1/statuses/<id>: a JSON array that never closes.
    if (path.startsWith("/api/")) {
      res.writeHead(200, { "content-type": "application/json" }).write("[");
      return flood(res, Buffer.from("1,".repeat(32_768)));
    }
    res.writeHead(404, { "content-type": "text/html" }).end("<title>not here</title>");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => (sockets.forEach((socket) => socket.destroy()), server.close(() => resolve()))),
  };
}

/**
 * The descendants of `pid`, from /proc, but the host's chooser (which lives as long as the host),
 * its workers (which wait for the next job; what a job started in one is still counted) and the
 * shell that watches the host for each process the host forks (it lives as long as that process).
 */
async function descendantsOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  const all = text.split(" ").filter(Boolean).map(Number);
  const names = await Promise.all(
    all.map((child) => readFile(`/proc/${child}/cmdline`, "utf8").then((line) => line.split("\0")[0]!, () => "")),
  );
  const comms = await Promise.all(
    all.map((child) => readFile(`/proc/${child}/comm`, "utf8").then((name) => name.trim(), () => "")),
  );
  const kept = (i: number) => comms[i] !== "host-chooser" && names[i] !== "host-watch";
  const below = (await Promise.all(all.filter((_, i) => kept(i)).map(descendantsOf))).flat();
  return [...all.filter((_, i) => kept(i) && comms[i] !== "host-worker"), ...below];
}

/** What runs a job now: the host's forks, and any process whose command line names the test site. */
async function jobProcesses(): Promise<number[]> {
  const hostPid = (host.status() as { pid?: number }).pid;
  const forks = hostPid === undefined ? [] : await descendantsOf(hostPid);
  const named = [];
  for (const pid of await descendantsOf(process.pid)) {
    const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (command.includes(site.origin)) named.push(pid);
  }
  return [...forks, ...named];
}

let site: Awaited<ReturnType<typeof startSite>>;
let host: ExtractionHost;
const paths = { "yt-dlp": "yt-dlp", "gallery-dl": "gallery-dl" };
const program = createCliExtractor(nodeProcesses, paths, memoryLimitBytes);

beforeAll(async () => {
  site = await startSite();
  host = createExtractionHost({
    processes: nodeProcesses,
    toolRuns: nodeToolRuns,
    ytdlpPath: "yt-dlp",
    galleryDlPath: "gallery-dl",
    // A job the host would hand to the program fails: every job of its suite is seen to run in the host.
    cli: { run: () => Promise.reject(new Error("the job ran the tool's program, not the host")) },
    enabled: true,
    maxMemoryBytes: memoryLimitBytes,
    // The service's own options, and --no-cache-dir, which this suite's jobs carry: they run in workers too.
    workerOptions: { ...workerOptions, flags: [...workerOptions.flags, "--no-cache-dir"] },
  });
  host.start(createLogger("silent"));
  await until("the host", () => host.status().state === "ready" || undefined, 120_000);
}, scaled(180_000));
afterAll(async () => {
  await host?.close();
  await site?.close();
});

const extractors: [string, () => Extractor][] = [
  ["the tool's program", () => program],
  ["the extraction host", () => host],
];

describe.each(extractors)("%s", (_name, extractor) => {
  const ytdlp = (...args: string[]) =>
    extractor().run({ tool: "yt-dlp", args: ["-J", "--no-cache-dir", ...args], timeoutMs });

  test("describes a page", async () => {
    const output = await ytdlp("--", `${site.origin}/page.html`);
    expect(output.exitCode).toBe(0);
    expect(JSON.parse(output.stdout).title).toBe("a page (1)");
  });

  test("lists the players a page embeds", async () => {
    const output = await ytdlp("--flat-playlist", "--", `${site.origin}/embeds.html`);
    expect(output.exitCode).toBe(0);
    const entries = (JSON.parse(output.stdout) as { entries: { url: string }[] }).entries.map((entry) => entry.url);
    expect(entries).toEqual([
      "https://www.youtube.com/embed/dQw4w9WgXcQ",
      "https://content.jwplatform.com/players/nPripu9l",
    ]);
  });

  test("keeps a failure's first error line in the log's excerpt however much log surrounds it", async () => {
    // -v logs the command line first (padded here) and a traceback after each error; yt-dlp goes on to the next links.
    const links = ["first", "second", "third", "fourth"].map((name) => `${site.origin}/${name}.html`);
    const output = await ytdlp("-v", "--add-header", `X-Pad:${"p".repeat(3000)}`, "--", ...links);
    expect(output.exitCode).toBe(1);
    expect(output.stderr).toMatch(/^ERROR: \[generic\] first: Unable to download webpage: HTTP Error 404/m);
    expect(output.stderr).toContain("\n[...]\n");
    expect(output.stderr.length).toBeLessThanOrEqual(8 * 1024 + 64);
  }, scaled(120_000));

  const ceilings: [string, () => Promise<unknown>][] = [
    ["a page that never ends", () => ytdlp("--", `${site.origin}/endless.html`)],
    ["a 400 MB page", () => ytdlp("--", `${site.origin}/400mb.html`)],
    [
      "gallery-dl on a JSON answer that never ends",
      () =>
        extractor().run({
          tool: "gallery-dl",
          args: ["-j", "--", `mastodon:${site.origin}/@someone/1234567`],
          timeoutMs,
        }),
    ],
  ];
  test.each(ceilings)("fails %s with memory_exceeded, leaves nothing running and answers again", async (_what, run) => {
    const before = host.status();
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ code: "memory_exceeded", status: 502 });
    expect((failure as ApiError).message).toContain("320 MB");
    // The job's processes have ended (the tool's own, or the host's fork); the host is the one it was.
    await until("no process of the job", async () => (await jobProcesses()).length === 0 || undefined, 10_000);
    expect(host.status()).toMatchObject({ state: "ready", pid: (before as { pid: number }).pid });
    expect((await ytdlp("--", `${site.origin}/page.html`)).exitCode).toBe(0);
  }, scaled(150_000));
});
