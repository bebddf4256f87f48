// The contract as a client's author meets it, with tools nobody here wrote: TypeScript types
// generated from the served document by openapi-typescript, a small openapi-fetch client that
// must type-check against them (test/client/client.ts), and Stoplight's Prism validation proxy
// in front of the built service, which with --errors turns any request or response the
// document does not describe into an error answer instead of passing it on.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeCdn, fakeSha256, startFakeCdn } from "../fakes/cdn.ts";
import { fakeTweetIds, type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";

const run = promisify(execFile);

/** What test/client/client.ts makes; its own types come from the generated file, which exists only once this test has run. */
type ApiClient = (baseUrl: string, key: string) => {
  usage(): Promise<{ status: number; action: string; remaining: number | null }>;
  usageHead(): Promise<{ status: number; action: string }>;
  post(url: string): Promise<{ status: number; action: string; id: string | null; code: string | null }>;
  download(url: string): Promise<{ status: number; action: string; bytes: Uint8Array | null }>;
  createJob(urls: string[]): Promise<{ status: number; action: string; id: string | null; location: string | null }>;
  job(id: string): Promise<{ status: number; action: string; status_: string | null; posts: (string | null)[] }>;
};
// Imported by a name tsc does not follow: the root type check runs before the types are generated.
const clientModule = "../client/client.ts";
let apiClient: ApiClient;
const prismTimeoutMs = 180_000;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Prism's validation proxy in front of `upstream`; resolves once Prism says it listens. */
async function startPrism(
  documentPath: string,
  upstream: string,
): Promise<{ url: string; child: ChildProcess; log: string[] }> {
  const port = await freePort();
  const child = spawn("node_modules/.bin/prism", [
    "proxy",
    documentPath,
    upstream,
    "--errors",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
  ], { stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (log.join("").includes("Prism is listening")) resolve();
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`prism exited with ${code}: ${log.join("")}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, log };
}

describe("a generated client and Prism's validation proxy against the built service", () => {
  let x: FakeXUpstream;
  let cdn: FakeCdn;
  let service: RunningService;
  let prism: Awaited<ReturnType<typeof startPrism>>;
  let gold: string;
  let free: string;
  /** A key of another account. */
  let other: string;
  const tmp = mkdtempSync(join(tmpdir(), "client-"));

  beforeAll(async () => {
    [x, cdn] = await Promise.all([startFakeXUpstream(), startFakeCdn()]);
    const dataDir = join(tmp, "data");
    service = await startService({
      DATA_DIR: dataDir,
      X_SYNDICATION_URL: x.syndicationUrl,
      X_GRAPHQL_URL: "off",
      ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}`,
      HEALTH_TIMEOUT_MS: "30000",
    });
    const admin = { DATA_DIR: dataDir };
    await runAdmin(["users", "create", "--email", "client@example.com"], admin, "client password\n");
    gold = (await runAdmin(["keys", "create", "--email", "client@example.com", "--tier", "GOLD"], admin)).stdout.trim();
    free = (await runAdmin(["keys", "create", "--email", "client@example.com", "--tier", "FREE"], admin)).stdout.trim();
    await runAdmin(["users", "create", "--email", "other@example.com"], admin, "other password\n");
    other = (await runAdmin(["keys", "create", "--email", "other@example.com", "--tier", "PRO"], admin)).stdout.trim();
    const document = await (await fetch(`${service.url}/api/v1/openapi.json`)).json();
    const documentPath = join(tmp, "openapi.json");
    writeFileSync(documentPath, JSON.stringify(document));
    writeFileSync("test/client/api.generated.ts", astToString(await openapiTS(document)));
    ({ apiClient } = (await import(clientModule)) as { apiClient: ApiClient });
    prism = await startPrism(documentPath, service.url);
  }, prismTimeoutMs);

  afterAll(async () => {
    prism?.child.kill();
    await service?.stop();
    await Promise.all([x?.close(), cdn?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  it("type-checks a client that branches on every status the document declares", async () => {
    // Rejects with tsc's diagnostics when the client and the generated types disagree.
    await expect(run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "test/client/tsconfig.json"])).resolves
      .toBeDefined();
  }, prismTimeoutMs);

  it("calls usage (GET and HEAD), post and download through Prism, which finds nothing undocumented", async () => {
    const client = apiClient(prism.url, gold);
    expect(await client.usage()).toMatchObject({ status: 200, action: "show what is left", remaining: 99_999 });
    expect(await client.usageHead()).toMatchObject({ status: 200 });
    const post = await client.post(`https://x.com/nasa/status/1491475671058681863`);
    expect(post).toMatchObject({ status: 200, id: "1491475671058681863" });
    const media = "https://video.twimg.com/file/5000/clip.mp4";
    // Prism validates the file's answer but passes its body on as text, so the bytes are checked
    // from the service itself, by the same client.
    expect((await client.download(media)).status).toBe(200);
    const file = await apiClient(service.url, gold).download(media);
    expect(file.status).toBe(200);
    expect(file.bytes?.byteLength).toBe(5000);
    expect(createHash("sha256").update(file.bytes!).digest("hex")).toBe(fakeSha256(0, 5000));
  });

  it("passes the documented errors through unchanged: 400 unknown_parameter, 401, 404, 429", async () => {
    const client = apiClient(prism.url, gold);
    const unknown = await fetch(
      `${prism.url}/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/file/10/a.mp4")}&fromat=worst`,
      { headers: { authorization: `Bearer ${gold}` } },
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: "unknown_parameter" });
    expect((await client.post(`https://x.com/a/status/${fakeTweetIds.unknown}`)).status).toBe(404);
    expect((await apiClient(prism.url, `xva_${"A".repeat(43)}`).usage()).status).toBe(401);
    const burst = apiClient(prism.url, free);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await burst.usage()).status);
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
  });

  it("posts a job and follows it to its end through Prism, and another account's job is 404", async () => {
    const client = apiClient(prism.url, gold);
    const created = await client.createJob([`https://x.com/nasa/status/1491475671058681863`]);
    expect(created).toMatchObject({ status: 202, location: `/api/v1/jobs/${created.id}` });
    for (;;) {
      const job = await client.job(created.id!);
      expect(job.status).toBe(200);
      if (job.status_ === "completed") {
        expect(job.posts).toEqual(["1491475671058681863"]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await apiClient(prism.url, other).job(created.id!)).status).toBe(404);
  });

  it("serves the probes, the reference page and the document through Prism", async () => {
    for (const path of ["/healthz", "/docs", "/api/v1/openapi.json", "/metrics", "/platformz"]) {
      expect((await fetch(`${prism.url}${path}`)).status, path).toBe(200);
      expect((await fetch(`${prism.url}${path}`, { method: "HEAD" })).status, `HEAD ${path}`).toBe(200);
    }
    // Ready (200) or not (503, a tool's probe still running on a busy machine): both are
    // documented, so Prism passes the service's own answer on.
    for (const method of ["GET", "HEAD"]) {
      const direct = await fetch(`${service.url}/readyz`, { method });
      expect([200, 503]).toContain(direct.status);
      expect((await fetch(`${prism.url}/readyz`, { method })).status, `${method} /readyz`).toBe(direct.status);
    }
    expect(prism.log.join("")).not.toMatch(/Violation/i);
  });
});
