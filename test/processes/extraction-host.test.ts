// The extraction host with the real yt-dlp (issue 23): extractions in forks of one warm Python
// process behave as the program's own runs did: capped, cancelled, isolated from each other,
// classified the same, and nothing of them outlives its job, the host or the service.
import { chmod, cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiError, toProblem } from "../../src/http/problem.ts";
import { createLogger } from "../../src/log.ts";
import { createPageClient } from "../../src/platforms/tools/ytdlp/client.ts";
import { cookieFile as cookieFileOf } from "../../src/platforms/tools/ytdlp/cookie-file.ts";
import { wholeFile } from "../../src/platforms/cookie-jars.ts";
import { workerOptions } from "../../src/platforms/tools/ytdlp/run.ts";
import { createExtractionHost, type ExtractionHost, interpreterOf } from "../../src/processes/extraction-host.ts";
import { createCliExtractor } from "../../src/processes/extractor.ts";
import { nodeFiles } from "../../src/runtime/node/files.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";
import { nodeToolRuns } from "../../src/runtime/node/tool-runs.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { holdsWithin, until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

/** A site of pages yt-dlp's generic extractor reads, one that never answers, one that shows the cookies it got. */
async function startSite() {
  const sockets = new Set<Socket>();
  let hanging = 0;
  const video = (title: string) =>
    `<!DOCTYPE html><html><head><title>${title}</title></head><body><video src="/clip.mp4"></video></body></html>`;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, "http://site");
    if (url.pathname === "/hang.html") {
      hanging++;
      return void req.socket.once("close", () => hanging--); // never answers
    }
    if (url.pathname === "/blocked.html") return void res.writeHead(403, "Sign in to confirm you're not a bot").end();
    // The page's title is the Cookie header it got; it also sets a cookie of its own, which no other job may send back.
    if (url.pathname === "/echo.html") {
      res.writeHead(200, {
        "content-type": "text/html",
        "set-cookie": `from-site-${url.searchParams.get("n")}=1; Path=/`,
      });
      return void res.end(video(`cookie ${req.headers.cookie ?? "none"}`));
    }
    res.writeHead(200, { "content-type": "text/html" }).end(video(`page ${url.search}`));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    host: new URL(origin).host,
    /** Requests for the page that never answers now open: a job is reading it. */
    hanging: () => hanging,
    close: () =>
      new Promise<void>((resolve) => (sockets.forEach((socket) => socket.destroy()), server.close(() => resolve()))),
  };
}

const cli = createCliExtractor(nodeProcesses, { "yt-dlp": "yt-dlp", "gallery-dl": "gallery-dl" });

const readyPid = (host: ExtractionHost, other?: number) => {
  const status = host.status();
  return status.state === "ready" && status.pid !== other ? status.pid : undefined;
};

/** The process's children, from /proc; the host's chooser, which lives as long as the host, is not a job's. */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  const children = text.split(" ").filter(Boolean).map(Number);
  const names = await namesOf(children);
  return children.filter((_, i) => names[i] !== "host-chooser");
}

const namesOf = (pids: number[]) =>
  Promise.all(pids.map((pid) => readFile(`/proc/${pid}/comm`, "utf8").then((name) => name.trim(), () => "")));

/** Whether `pid` runs (a zombie does not). */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
}

let site: Awaited<ReturnType<typeof startSite>>;
let temp: string;
let host: ExtractionHost;
let hostTmp: string;
beforeAll(async () => {
  site = await startSite();
  temp = await mkdtemp(path.join(tmpdir(), "extraction-host-test-"));
  hostTmp = await mkdtemp(path.join(tmpdir(), "extraction-host-tmp-"));
  // The host's TMPDIR is a folder of its own, so that "nothing left on disk" can be seen; a job it
  // would hand to the program fails, so every job of these tests is seen to run in the host.
  host = createExtractionHost({
    processes: { ...nodeProcesses, env: { ...process.env, TMPDIR: hostTmp } },
    toolRuns: nodeToolRuns,
    ytdlpPath: "yt-dlp",
    galleryDlPath: "gallery-dl",
    cli: { run: () => Promise.reject(new Error("the job ran the tool's program, not the host")) },
    enabled: true,
    workerOptions,
  });
  host.start(createLogger("silent"));
  await until("the host", () => readyPid(host));
}, scaled(90_000));
afterAll(async () => {
  await host?.close();
  await site?.close();
  await rm(temp, { recursive: true, force: true });
  await rm(hostTmp, { recursive: true, force: true });
});

const pagesOf = (options: { timeoutMs?: number; cookiesFile?: string } = {}) =>
  createPageClient({
    extractor: host,
    files: nodeFiles,
    timeoutMs: options.timeoutMs ?? scaled(30_000),
    socketTimeoutSec: 20,
    cacheTtlMs: 0,
    cacheMaxEntries: 1,
    maxItems: 1,
    cookies: options.cookiesFile === undefined
      ? undefined
      : wholeFile(cookieFileOf(nodeFiles, options.cookiesFile, () => {})),
  });

describe("the extraction host", () => {
  test("reads the interpreter from the program's first line as the kernel does", () => {
    expect(interpreterOf("#! /usr/bin/python3\n# -*- coding")).toEqual(["/usr/bin/python3"]);
    expect(interpreterOf("#!/usr/bin/env python3\nimport")).toEqual(["/usr/bin/env", "python3"]);
    expect(interpreterOf("\x7fELF\x02\x01")).toBeNull();
    expect(interpreterOf("#!\n")).toBeNull();
  });

  test("describes a page in a worker of the warm host, the same as the program does", async () => {
    const pid = readyPid(host)!;
    const info = await pagesOf().info(new URL(`${site.origin}/page.html?first`));
    expect(info.title).toBe("page ?first (1)");
    expect(info.extractor).toBe("html5");
    // No program was started: the job ran in a worker of the host, which waits for the next.
    expect(readyPid(host)).toBe(pid);
    expect(await namesOf(await childrenOf(pid))).toEqual(["host-worker"]);
    // The program's own run of the same job prints the same description (its random User-Agent aside).
    const job = {
      tool: "yt-dlp" as const,
      args: ["-J", "--no-warnings", "--", `${site.origin}/page.html?first`],
      timeoutMs: scaled(30_000),
    };
    const [viaHost, viaProgram] = await Promise.all([host.run(job), cli.run(job)]);
    expect(viaHost.exitCode).toBe(0);
    // Each run picks a random User-Agent and notes its time.
    const strip = (text: string) =>
      ({ ...JSON.parse(text.replace(/"User-Agent": "[^"]*"/g, '"User-Agent": ""')), epoch: 0 }) as unknown;
    expect(strip(viaHost.stdout)).toEqual(strip(viaProgram.stdout));
  });

  test("passes a job's stdin and the tool's exit code and log as the program would", async () => {
    const info = await host.run({
      tool: "yt-dlp",
      args: ["-J", "--no-warnings", "--", `${site.origin}/page.html`],
      timeoutMs: scaled(30_000),
    });
    const loaded = await host.run({
      tool: "yt-dlp",
      args: ["-J", "-f", "0", "--load-info-json", "-"],
      stdin: info.stdout,
      timeoutMs: scaled(30_000),
    });
    expect(loaded.exitCode).toBe(0);
    expect(JSON.parse(loaded.stdout).format_id).toBe("0");
    const badOption = await host.run({ tool: "yt-dlp", args: ["--no-such-option"], timeoutMs: scaled(30_000) });
    expect(badOption.exitCode).toBe(2);
    expect(badOption.stderr).toContain("no such option: --no-such-option");
    const noPage = await host.run({ tool: "yt-dlp", args: ["-J", "--", "not-a-link"], timeoutMs: scaled(30_000) });
    expect(noPage.exitCode).toBe(1);
    expect(noPage.stdout).toBe(""); // as the CLI extractor: a failed run's output is not a description
    expect(noPage.stderr).toMatch(/^ERROR: .*'not-a-link' is not a valid URL/m);
  });

  test("runs gallery-dl's jobs too, as its program does", async () => {
    const job = { tool: "gallery-dl" as const, args: ["--version"], timeoutMs: scaled(30_000) };
    const [viaHost, viaProgram] = await Promise.all([host.run(job), cli.run(job)]);
    expect(viaHost.exitCode).toBe(0);
    expect(viaHost).toEqual(viaProgram);
    expect((host.status() as { versions: Record<string, string> }).versions["gallery-dl"]).toBe(viaHost.stdout.trim());
  });

  test("kills an extraction that hangs at its cap, lives on, and answers the next one", async () => {
    const pid = readyPid(host)!;
    const started = Date.now();
    const hanging = pagesOf({ timeoutMs: 1_500 }).info(new URL(`${site.origin}/hang.html`));
    await until("the job's child", async () => (await childrenOf(pid)).length > 0 || undefined, 10_000);
    const [child] = await childrenOf(pid);
    expect(await running(child!)).toBe(true);
    await expect(hanging).rejects.toMatchObject({ status: 504, code: "upstream_timeout" });
    expect(Date.now() - started).toBeLessThan(3_000);
    await holdsWithin(async () => !(await running(child!)), 2_000);
    expect(await running(child!)).toBe(false);
    expect(readyPid(host)).toBe(pid);
    expect((await pagesOf().info(new URL(`${site.origin}/page.html?after-hang`))).title).toBe("page ?after-hang (1)");
  });

  test.each([
    ["its worker", []],
    ["its child", ["--no-check-certificates"]], // an option a worker does not take
  ])("a client that goes away ends the job's process at once (499): %s", async (_process, options) => {
    const pid = readyPid(host)!;
    const controller = new AbortController();
    const job = host.run({
      tool: "yt-dlp",
      args: ["-J", ...options, "--", `${site.origin}/hang.html`],
      timeoutMs: scaled(30_000),
      signal: controller.signal,
    });
    await until("the job reading its page", () => site.hanging() > 0 || undefined, 10_000);
    const processes = await childrenOf(pid);
    controller.abort();
    await expect(job).rejects.toMatchObject({ status: 499 });
    // A worker with no other job ends at once, like a child; an idle worker may stay.
    expect(await holdsWithin(async () => (await childrenOf(pid)).length === processes.length - 1, 2_000)).toBe(true);
    expect(await holdsWithin(() => site.hanging() === 0, 2_000)).toBe(true);
  });

  test("two jobs with different cookie files each send only their own, and a job without one sends none", async () => {
    const cookieFile = async (name: string, value: string) => {
      const file = path.join(temp, `${name}.txt`);
      await writeFile(file, `# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\t${name}\t${value}\n`);
      return file;
    };
    const [alice, bob] = await Promise.all([cookieFile("alice", "a-1"), cookieFile("bob", "b-2")]);
    // The private copies yt-dlp is given go to the host's temp folder, which is seen empty after.
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = hostTmp;
    try {
      const titles = await Promise.all([
        pagesOf({ cookiesFile: alice }).info(new URL(`${site.origin}/echo.html?n=1`)),
        pagesOf({ cookiesFile: bob }).info(new URL(`${site.origin}/echo.html?n=2`)),
      ]).then((infos) => infos.map((info) => info.title));
      expect(titles).toEqual(["cookie alice=a-1 (1)", "cookie bob=b-2 (1)"]);
      // Neither the files' cookies nor those the site set in the jobs before reach a later job.
      expect((await pagesOf().info(new URL(`${site.origin}/echo.html?n=3`))).title).toBe("cookie none (1)");
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
  });

  test("a bot check is still 502 upstream_blocked", async () => {
    const failure = await pagesOf().info(new URL(`${site.origin}/blocked.html`)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(toProblem(failure as ApiError)).toMatchObject({ status: 502, code: "upstream_blocked" });
  });

  test("leaves nothing in its temp folder (nor do the cookie copies of the jobs above)", async () => {
    expect(await readdir(hostTmp)).toEqual([]);
  });
});

describe("the extraction host in the app", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("pglite");
  });
  afterAll(async () => {
    await store?.close();
  });

  test(
    "a host killed with SIGKILL fails its request in flight with problem+json at once, and is started again",
    async () => {
      const test = buildTestApp(store.db, {
        env: { EXTRA_PAGE_HOSTS: site.host, PAGE_CACHE_TTL_S: "0" },
        extractionHost: true,
      });
      try {
        const key = (await makeKey(store.db, "GOLD")).plain;
        const pid = await until("the host", () => readyPid(test.extractor));
        const post = (page: string) => test.get(`/api/v1/post?url=${encodeURIComponent(`${site.origin}${page}`)}`, key);

        expect((await post("/page.html?via-app")).status).toBe(200);
        const inFlight = post("/hang.html");
        await until("the job's child", async () => (await childrenOf(pid)).length > 0 || undefined, 10_000);
        const [child] = await childrenOf(pid);
        expect(await running(child!)).toBe(true);
        process.kill(pid, "SIGKILL");
        const killedAt = Date.now();
        const response = await inFlight;
        expect(Date.now() - killedAt).toBeLessThan(1_000);
        expect(response.status).toBe(502);
        expect(response.headers.get("content-type")).toBe("application/problem+json");
        expect(await response.json()).toMatchObject({ status: 502, code: "upstream_failed" });
        // The job's child died with its host.
        expect(await holdsWithin(async () => !(await running(child!)), 3_000)).toBe(true);

        // While the host starts again the program stands in; then the new host answers.
        expect((await post("/page.html?while-restarting")).status).toBe(200);
        const again = await until("the new host", () => readyPid(test.extractor, pid));
        expect((await post("/page.html?new-host")).status).toBe(200);
        const ready = await (await test.get("/readyz")).json();
        expect(ready.checks["extraction-host"].detail).toMatch(
          new RegExp(`^in use: pid ${again}, yt-dlp \\d{4}\\.\\d{2}\\.\\d{2}`),
        );
        expect(await (await test.get("/metrics")).text()).toMatch(
          /media_api_extraction_host_info\{state="ready",ytdlp_version="\d{4}\.\d\d\.\d\d[^"]*"\} 1/,
        );
        expect(test.logLines.join("\n")).toMatch(
          /extraction host stopped: extractions start the tool's program until it runs again/,
        );
      } finally {
        const status = test.extractor.status();
        await test.extractor.close();
        if (status.state === "ready") expect(await running(status.pid)).toBe(false);
      }
    },
    scaled(120_000),
  );
});

describe("a host that cannot start", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("pglite");
  });
  afterAll(async () => {
    await store?.close();
  });

  test("says so in /readyz, /metrics and /platformz, and is used once it can start, without a restart", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "extraction-host-mended-"));
    const program = path.join(root, "yt-dlp");
    // yt-dlp as a standalone build is: a program without a `#!` line, whose yt-dlp no Python can import.
    await writeFile(program, "\x7fELF not a script\n");
    await chmod(program, 0o755);
    const test = buildTestApp(store.db, { env: { YTDLP_PATH: program }, extractionHost: true });
    try {
      const reason = `${program} is not a Python script`;
      await until("the host's refusal", () => test.extractor.status().state === "unavailable" || undefined);
      const ready = await (await test.get("/readyz")).json();
      expect(ready.checks["extraction-host"]).toMatchObject({
        ok: true,
        warning: "extractions take about a second each without the extraction host",
      });
      expect(ready.checks["extraction-host"].detail).toContain(`not in use (unavailable: ${reason}`);
      expect(ready.checks["extraction-host"].detail).toMatch(/trying again in \d+ s\)/);
      expect(await (await test.get("/metrics")).text()).toMatch(
        /media_api_extraction_host_info\{state="unavailable",ytdlp_version=""\} 1/,
      );
      expect((await (await test.get("/platformz")).json()).extractionHost).toContain(
        `the extraction host is not in use (${reason}`,
      );
      expect(test.logLines.join("\n")).toContain("extraction host not used");

      // The operator installs yt-dlp as a Python program in its place: the next try starts the host.
      await writeFile(program, "#!/usr/bin/python3\nimport sys, yt_dlp\nsys.exit(yt_dlp.main())\n");
      const pid = await until("the host", () => readyPid(test.extractor), 90_000);
      expect((await (await test.get("/readyz")).json()).checks["extraction-host"].detail).toMatch(
        new RegExp(`^in use: pid ${pid}, yt-dlp \\d{4}\\.\\d{2}\\.\\d{2}`),
      );
      const metrics = await (await test.get("/metrics")).text();
      expect(metrics).toMatch(/media_api_extraction_host_info\{state="ready",ytdlp_version="\d{4}[^"]*"\} 1/);
      expect(metrics).toMatch(/media_api_extraction_host_info\{state="unavailable",ytdlp_version=""\} 0/);
      expect((await (await test.get("/platformz")).json()).extractionHost).toBeNull();
    } finally {
      await test.extractor.close();
      await rm(root, { recursive: true, force: true });
    }
  }, scaled(150_000));
});

describe("a yt-dlp updated on disk", () => {
  test("is loaded by a new host at the next job, which the program runs meanwhile; the old host exits", async () => {
    // A yt-dlp of its own: a copy of the package, run by a script as pip or a venv would install it.
    const root = await mkdtemp(path.join(tmpdir(), "extraction-host-update-"));
    const program = path.join(root, "yt-dlp");
    const ownCli = createCliExtractor(nodeProcesses, { "yt-dlp": program, "gallery-dl": "gallery-dl" });
    const updating = createExtractionHost({
      processes: nodeProcesses,
      toolRuns: nodeToolRuns,
      ytdlpPath: program,
      galleryDlPath: "gallery-dl",
      cli: ownCli,
      enabled: true,
      workerOptions,
    });
    try {
      const installed = path.dirname(
        JSON.parse(
          execFileSync("/usr/bin/python3", ["-c", "import json, yt_dlp; print(json.dumps(yt_dlp.__file__))"])
            .toString(),
        ),
      );
      // With their times, so that Python's compiled files of the copy stay valid (else its first import compiles for long).
      await cp(installed, path.join(root, "yt_dlp"), { recursive: true, preserveTimestamps: true });
      await writeFile(
        program,
        `#!/usr/bin/env -S PYTHONPATH=${root} /usr/bin/python3\nimport sys, yt_dlp\nsys.exit(yt_dlp.main())\n`,
      );
      await chmod(program, 0o755);
      updating.start(createLogger("silent"));
      const oldPid = await until("the host", () => readyPid(updating));
      const versionFile = path.join(root, "yt_dlp", "version.py");
      const loaded = (updating.status() as { versions: Record<string, string> }).versions["yt-dlp"]!;
      expect(loaded).toMatch(/^\d{4}\.\d\d\.\d\d/);

      await writeFile(
        versionFile,
        (await readFile(versionFile, "utf8")).replace(/__version__ = '[^']*'/, "__version__ = '2099.01.01'"),
      );
      const version = await updating.run({ tool: "yt-dlp", args: ["--version"], timeoutMs: scaled(30_000) });
      expect(version).toMatchObject({ exitCode: 0, stdout: "2099.01.01\n" });
      const newPid = await until("the new host", () => readyPid(updating, oldPid));
      expect((updating.status() as { versions: Record<string, string> }).versions["yt-dlp"]).toBe("2099.01.01");
      await until("the old host's exit", async () => !(await running(oldPid)) || undefined, 5_000);
      const viaNewHost = await updating.run({ tool: "yt-dlp", args: ["--version"], timeoutMs: scaled(30_000) });
      expect(viaNewHost.stdout).toBe("2099.01.01\n");
      expect(readyPid(updating)).toBe(newPid);
    } finally {
      await updating.close();
      await rm(root, { recursive: true, force: true });
    }
  }, scaled(180_000));
});
