// The service's side of the host's protocol, against a stand-in host (a shell script) that
// answers as told: a message it cannot read or a process it could not fork fails that one job,
// and the host's next job is answered. And a YTDLP_PATH that is a shell script starts no host.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createExtractionHost } from "../../src/processes/extraction-host.ts";
import { type HostProcess, startHostProcess } from "../../src/processes/host-process.ts";
import { nodeProcesses } from "../../src/runtime/node/processes.ts";
import { nodeToolRuns } from "../../src/runtime/node/tool-runs.ts";
import { scaled } from "../helpers/slowness.ts";
import { settled } from "../helpers/until.ts";

// Started as `sh fake-host -c LOADER SIZE ...`: reads the program it is sent, says it is ready,
// then answers each job by what its first argument asks.
const FAKE_HOST = `head -c "$3" >/dev/null
echo '{"ready": {"pid": '$$', "versions": {"yt-dlp": "1", "gallery-dl": null}, "warmMs": 1, "rssBytes": 1}}'
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"id": *\\([0-9]*\\),.*/\\1/p')
  case "$line" in
    *'"cut-off"'*) printf '{"id": %s, "exitCode": 0, "stdout": "half\\n' "$id" ;;
    *'"not-a-message"'*) echo 'Traceback (most recent call last):' ;;
    *'"no-fork"'*) printf '{"id": %s, "error": "the job'"'"'s process could not be started: [Errno 11] Resource temporarily unavailable"}\\n' "$id" ;;
    *'"fine"'*) printf '{"id": %s, "stderr": "WARNING: a warning\\\\n"}\\n{"id": %s, "exitCode": 0, "stdout": "done"}\\n' "$id" "$id" ;;
  esac
done`;

let dir: string;
let host: HostProcess;
let ended: { code: number | null } | undefined;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "host-process-"));
  await writeFile(path.join(dir, "fake-host"), FAKE_HOST);
  host = startHostProcess(nodeProcesses, {
    program: "yt-dlp",
    interpreter: ["/bin/sh", path.join(dir, "fake-host")],
    galleryDl: false,
    workerOptions: { flags: [], valued: [] },
  }, {
    onReady: () => {},
    onStale: () => {},
    onRss: () => {},
    onExit: (end) => (ended = end),
  }, createLogger("silent"));
  await settled(() => host.ready, 30_000, 20);
});
afterAll(async () => {
  host?.end();
  await host?.exited;
  await rm(dir, { recursive: true, force: true });
});

const run = (what: string, timeoutMs = scaled(30_000)) => host.submit({ tool: "yt-dlp", args: [what], timeoutMs });

test("a job's answer and its log come through", async () => {
  expect(await run("fine")).toEqual({ exitCode: 0, stdout: "done", stderr: "WARNING: a warning\n" });
});

test("an answer that cannot be read fails that job with 502, and the host answers the next", async () => {
  await expect(run("cut-off")).rejects.toMatchObject({ status: 502, code: "upstream_failed" });
  expect(await run("fine")).toMatchObject({ exitCode: 0, stdout: "done" });
  expect(ended).toBeUndefined();
});

test("a line that names no job fails none, ends nothing, and the host answers the next", async () => {
  // The job it was meant for gets no answer: its time cap ends it.
  await expect(run("not-a-message", 500)).rejects.toMatchObject({ status: 504 });
  expect(await run("fine")).toMatchObject({ exitCode: 0 });
  expect(ended).toBeUndefined();
});

test("a job whose process could not be forked fails alone with 502", async () => {
  const failure = await run("no-fork").catch((error: unknown) => error);
  expect(failure).toMatchObject({ status: 502, code: "upstream_failed" });
  expect((failure as Error).message).toContain("Resource temporarily unavailable");
  expect(await run("fine")).toMatchObject({ exitCode: 0 });
});

test("a YTDLP_PATH that runs bash starts no host and is not retried: the program runs every job", async () => {
  const program = path.join(dir, "yt-dlp-wrapper");
  await writeFile(program, '#!/bin/bash\nexec yt-dlp "$@"\n');
  await chmod(program, 0o755);
  let starts = 0;
  const wrapped = createExtractionHost({
    processes: { ...nodeProcesses, spawn: (...args) => (starts++, nodeProcesses.spawn(...args)) },
    toolRuns: nodeToolRuns,
    ytdlpPath: program,
    galleryDlPath: "gallery-dl",
    cli: { run: async () => ({ exitCode: 0, stdout: "from the program", stderr: "" }) },
    enabled: true,
    workerOptions: { flags: [], valued: [] },
  });
  wrapped.start(createLogger("silent"));
  await settled(() => wrapped.status().state !== "starting", 30_000, 20);
  expect(wrapped.status()).toMatchObject({ state: "unavailable", reason: expect.stringContaining("not Python") });
  expect(starts).toBe(0);
  expect((await wrapped.run({ tool: "yt-dlp", args: [], timeoutMs: 1_000 })).stdout).toBe("from the program");
  await wrapped.close();
});
