// Two instances on one PostgreSQL behind the nginx block of docs/operating.md, as deployed: the
// block passes `nginx -t`, passes on what the service is asked (the caller's X-Request-Id, a job's
// body as large as the service takes), and a rolling restart (each instance stopped with SIGTERM
// and started again in turn) loses no request of a client calling 20 times a second.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkNginx, type RunningNginx, startNginx } from "../helpers/nginx.ts";
import { freePort } from "../helpers/ports.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { createTestDatabase } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";
import { jobBodyBytesOf } from "../../src/jobs/request.ts";

const folders: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "media-api-nginx-"));
  folders.push(dir);
  return dir;
};
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe("the documented nginx block", () => {
  it("passes nginx -t", async () => {
    const site = { port: await freePort(), upstreams: [await freePort(), await freePort()] as [number, number] };
    const checked = checkNginx({ ...site, dir: scratch() });
    expect(checked.output).toContain("syntax is ok");
    expect(checked.code).toBe(0);
  });
});

/** One call through nginx's TLS port as media.example.org: the answer's status, headers and body. */
function callThrough(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string> },
  body?: Buffer,
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, servername: "media.example.org", rejectUnauthorized: false, ...options },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once(
          "end",
          () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

describe("what the documented block passes on", () => {
  let service: RunningService | undefined;
  let nginx: RunningNginx | undefined;
  let port = 0;
  let key = "";
  afterAll(async () => {
    await nginx?.stop();
    await service?.stop();
  });

  beforeAll(async () => {
    const env = { DATA_DIR: scratch(), EXTRACTION_HOST: "off", TRUST_PROXY: "127.0.0.1" };
    service = await startService(env);
    expect((await runAdmin(["users", "create", "--email", "op@example.com"], env, "a long password\n")).code).toBe(0);
    key = (await runAdmin(["keys", "create", "--email", "op@example.com", "--tier", "GOLD"], env)).stdout.trim();
    const upstream = Number(new URL(service.url).port);
    port = await freePort();
    // Both of the block's instances are this one.
    nginx = await startNginx({ port, upstreams: [upstream, upstream], dir: scratch() });
  });

  it("passes the caller's X-Request-Id on, which the service answers and logs with, and makes one where there is none", async () => {
    const headers = { authorization: `Bearer ${key}` };
    const given = await callThrough(port, {
      path: "/api/v1/usage",
      headers: { ...headers, "x-request-id": "caller-7.a:b_c" },
    });
    expect([given.status, given.headers["x-request-id"]]).toEqual([200, "caller-7.a:b_c"]);
    await until(
      "the service's line of the request",
      () => service!.output.some((line) => line.includes('"requestId":"caller-7.a:b_c"')),
      10_000,
    );
    const made = await callThrough(port, { path: "/api/v1/usage", headers });
    expect(made.headers["x-request-id"]).toMatch(/^[0-9a-f]{32}$/);
  });

  it("lets a job's body as large as the service takes reach it, which answers it", async () => {
    // The largest body a GOLD key may send, and no job (a link too long, a field no job has): the service's 400, not nginx's 413.
    const most = jobBodyBytesOf("GOLD");
    const head = '{"unknownField":1,"urls":["https://example.org/';
    const body = Buffer.from(`${head}${"a".repeat(most - head.length - 3)}"]}`);
    expect(body.length).toBe(most);
    const answer = await callThrough(port, {
      method: "POST",
      path: "/api/v1/jobs",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    }, body);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect([answer.status, JSON.parse(answer.text).code]).toEqual([400, "invalid_request"]);
  }, scaled(60_000));
});

/** Calls GET /api/v1/usage through nginx every 50 ms (up to 8 at once), until stopped; each answer's status, or the error. */
function steadyClient(port: number, key: string) {
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false, servername: "media.example.org" });
  const outcomes: (number | string)[] = [];
  const pending = new Set<Promise<void>>();
  const call = () =>
    new Promise<void>((resolve) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/api/v1/usage", agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          res.resume();
          res.once("end", () => {
            outcomes.push(res.statusCode!);
            resolve();
          });
        },
      );
      req.once("error", (error) => {
        outcomes.push(error.message);
        resolve();
      });
      req.end();
    });
  // Bounded: at most 4,000 calls (200 s), whatever the test does. At most 8 in flight: on a busy
  // machine the answers slow down, and a client that kept sending would meet nginx's per-client
  // limits (429), which is not what this test is about.
  let sent = 0;
  const timer = setInterval(() => {
    if (pending.size >= 8) return;
    if (++sent > 4_000) return clearInterval(timer);
    const done = call().finally(() => pending.delete(done));
    pending.add(done);
  }, 50);
  return {
    outcomes,
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      agent.destroy();
    },
  };
}

describe("a rolling restart behind nginx", () => {
  const services: RunningService[] = [];
  let nginx: RunningNginx | undefined;
  let dropDatabase = async () => {};
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(services.map((service) => service.stop()));
    await dropDatabase();
  }, scaled(60_000));

  it("answers every call 200 while each instance is stopped with SIGTERM and started again", async () => {
    const database = await createTestDatabase();
    dropDatabase = database.drop;
    const ports: [number, number] = [await freePort(), await freePort()];
    const envOf = (port: number) => ({
      DATABASE_URL: database.url,
      DATA_DIR: scratch(),
      PORT: String(port),
      EXTRACTION_HOST: "off",
      TRUST_PROXY: "127.0.0.1",
      PUBLIC_URL: "https://media.example.org",
    });
    const env = ports.map(envOf);
    services.push(await startService(env[0]!), await startService(env[1]!));
    const admin = { DATABASE_URL: database.url, DATA_DIR: scratch() };
    expect((await runAdmin(["users", "create", "--email", "op@example.com"], admin, "a long password\n")).code)
      .toBe(0);
    const key = (await runAdmin(["keys", "create", "--email", "op@example.com", "--tier", "GOLD"], admin)).stdout
      .trim();
    const site = { port: await freePort(), upstreams: ports, dir: scratch() };
    nginx = await startNginx(site);

    const client = steadyClient(site.port, key);
    const answered = (count: number) => until(`${count} answers`, () => client.outcomes.length >= count, 60_000);
    await answered(20);
    for (const index of [0, 1]) {
      const stopped = services[index]!;
      expect(await stopped.stop(), `its last lines:\n${stopped.output.slice(-15).join("\n")}`).toBe(0);
      const before = client.outcomes.length;
      services[index] = await startService(env[index]!);
      // Calls went on while it was down and starting, and go on after.
      await answered(Math.max(before, client.outcomes.length) + 20);
    }
    await client.stop();
    const notOk = client.outcomes.filter((outcome) => outcome !== 200);
    expect(notOk).toEqual([]);
    expect(client.outcomes.length).toBeGreaterThanOrEqual(60);
  }, scaled(180_000));
});
