// The egress gate on its own, with real ffmpeg: only a session's credentials open it, https goes
// through it by CONNECT (and a redirect from there is checked too), and it chains to an operator's
// OUTBOUND_PROXY over HTTP (CONNECT and absolute form) or SOCKS5 (with user and password).
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, upstreamFailed } from "../../src/http/problem.ts";
import { causeText } from "../../src/log.ts";
import { createEgressGate, type EgressGate, type GateSession, gateVerdict } from "../../src/net/egress-gate.ts";
import { endpointKey } from "../../src/net/egress.ts";
import { parseOutboundProxy } from "../../src/net/outbound-proxy.ts";
import { resolveWithDns } from "../../src/runtime/node/dns.ts";
import { listenLoopback } from "../../src/runtime/node/gate-listener.ts";
import { type Canary, startCanary } from "../fakes/canary.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { startHttpProxy, startSocks5Proxy } from "../fakes/proxies.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);

/** ffmpeg reading `url` through `proxy` to nowhere; resolves with its exit code. */
async function ffmpegReads(url: string, proxy: string): Promise<number> {
  const args = [
    "-nostdin",
    "-v",
    "error",
    "-protocol_whitelist",
    "http,https,tls,tcp,crypto,httpproxy",
    "-http_proxy",
    proxy,
    "-i",
    url,
    "-f",
    "null",
    "-",
  ];
  return run("ffmpeg", args, { env: { PATH: process.env.PATH } }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? -1,
  );
}

/** What a raw client gets back from the gate for one request head. */
async function rawAnswer(port: number, head: string): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  socket.write(head);
  let text = "";
  for await (const chunk of socket) text += String(chunk);
  return text;
}

describe("the egress gate", () => {
  let site: MediaSite;
  let canary: Canary;
  let tls: { dir: string; server: https.Server; origin: string; paths: string[] };
  const gates: EgressGate[] = [];

  const gateFor = (outbound: string | null = null, originOverrides?: ReadonlyMap<string, string>) => {
    const trusted = new Set([
      endpointKey("127.0.0.1", Number(new URL(site.origin).port)),
      endpointKey("127.0.0.1", Number(new URL(tls.origin).port)),
    ]);
    const gate = createEgressGate({
      policy: { trusted, resolveHost: resolveWithDns },
      listen: listenLoopback,
      outbound: outbound === null ? null : parseOutboundProxy(outbound),
      originOverrides,
    });
    gates.push(gate);
    return gate;
  };

  beforeAll(async () => {
    [site, canary] = await Promise.all([startMediaSite(), startCanary()]);
    // An https source with a self-signed certificate (ffmpeg does not verify by default).
    const dir = mkdtempSync(join(tmpdir(), "gate-tls-"));
    execFileSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=127.0.0.1",
      "-days",
      "1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ], { stdio: "ignore" });
    const paths: string[] = [];
    const server = https.createServer({
      key: readFileSync(join(dir, "key.pem")),
      cert: readFileSync(join(dir, "cert.pem")),
    }, (req, res) => {
      paths.push(req.url ?? "");
      if (req.url === "/away") return void res.writeHead(302, { location: `${canary.origin}/clip.mp4` }).end();
      void fetch(site.mp4Url).then(async (answer) => {
        res.writeHead(200, {
          "content-type": "video/mp4",
          "content-length": answer.headers.get("content-length") ?? "",
        });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    tls = { dir, server, origin: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`, paths };
  }, scaled(60_000));
  afterAll(async () => {
    await Promise.all(gates.map((gate) => gate.close()));
    tls?.server.closeAllConnections();
    await new Promise((resolve) => tls?.server.close(resolve));
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
    await Promise.all([site?.close(), canary?.close()]);
    expect(canary.connections()).toBe(0);
  });

  it("answers 407 to a client without a live session's credentials", async () => {
    const gate = gateFor();
    const session = await gate.session("media");
    const { port, username, password } = new URL(session.proxyUrl);
    const head = (auth: string | null) =>
      `GET ${site.mp4Url} HTTP/1.1\r\nHost: ${site.host}\r\n${
        auth === null ? "" : `Proxy-Authorization: Basic ${Buffer.from(auth).toString("base64")}\r\n`
      }\r\n`;
    expect(await rawAnswer(Number(port), head(null))).toMatch(/^HTTP\/1\.1 407 /);
    expect(await rawAnswer(Number(port), head(`${username}:${password.slice(1)}x`))).toMatch(/^HTTP\/1\.1 407 /);
    expect(await rawAnswer(Number(port), head(`${username}:${password}`))).toMatch(/^HTTP\/1\.1 200 /);
    session.close();
    expect(await rawAnswer(Number(port), head(`${username}:${password}`))).toMatch(/^HTTP\/1\.1 407 /);
  });

  it("sends a host ORIGIN_OVERRIDES names to its origin (CONNECT and plain HTTP), and leaves other hosts to the policy", async () => {
    const overrides = new Map([["media.example.test", tls.origin], ["page.example.test", site.origin]]);
    const session = await gateFor(null, overrides).session("media");
    const { port, username, password } = new URL(session.proxyUrl);
    const auth = `Proxy-Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}\r\n`;
    // The tunnel reaches the TLS origin: ffmpeg (which does not check the name) reads through it.
    expect(await ffmpegReads("https://media.example.test/overridden.mp4", session.proxyUrl)).toBe(0);
    expect(tls.paths).toContain("/overridden.mp4");
    expect(
      await rawAnswer(
        Number(port),
        `GET http://page.example.test${
          new URL(site.mp4Url).pathname
        } HTTP/1.1\r\nHost: page.example.test\r\n${auth}\r\n`,
      ),
    ).toMatch(/^HTTP\/1\.1 200 /);
    // A name nobody overrode still goes by the policy: the canary's address is refused.
    expect(await rawAnswer(Number(port), `CONNECT ${canary.host} HTTP/1.1\r\n${auth}\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
    expect(session.refusal()?.message).toContain(canary.host);
  });

  it("refuses with 403 what the policy refuses, and the session names it", async () => {
    const session = await gateFor().session("media");
    const { port, username, password } = new URL(session.proxyUrl);
    const auth = `Proxy-Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}\r\n`;
    expect(await rawAnswer(Number(port), `CONNECT ${canary.host} HTTP/1.1\r\n${auth}\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
    expect(session.refusal()?.code).toBe("host_not_allowed");
    expect(session.refusal()?.message).toContain(canary.host);
    // A trusted host on a port nobody named is refused the same way.
    expect(await rawAnswer(Number(port), `GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n${auth}\r\n`))
      .toMatch(/^HTTP\/1\.1 403 /);
  });

  it("says why it could not connect, which the child only hears as 502, and the verdict on the child's failure carries it", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const trusted = new Set([endpointKey("127.0.0.1", closedPort), endpointKey("nothing.invalid", 80)]);
    const gate = createEgressGate({
      policy: { trusted, resolveHost: resolveWithDns },
      listen: listenLoopback,
      outbound: null,
    });
    gates.push(gate);
    const ask = async (session: GateSession, head: string) => {
      const { port, username, password } = new URL(session.proxyUrl);
      return rawAnswer(
        Number(port),
        `${head}\r\nProxy-Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}\r\n\r\n`,
      );
    };
    const childFailed = upstreamFailed(
      "The post could not be read from the source site (yt-dlp exit 1); try again later.",
      { cause: new Error("Unable to download webpage: HTTP Error 502: Bad Gateway") },
    );

    const refused = await gate.session("media");
    expect(refused.failure()).toBeNull();
    expect(gateVerdict(refused, childFailed)).toBe(childFailed);
    expect(await ask(refused, `GET http://127.0.0.1:${closedPort}/page HTTP/1.1\r\nHost: 127.0.0.1:${closedPort}`))
      .toMatch(/^HTTP\/1\.1 502 /);
    expect(refused.failure()).toBe(
      `127.0.0.1:${closedPort}: connection refused (connect ECONNREFUSED 127.0.0.1:${closedPort})`,
    );
    const verdict = gateVerdict(refused, childFailed);
    expect(verdict).toMatchObject({ status: 502, code: "upstream_failed", message: childFailed.message });
    expect(String((verdict as ApiError).cause)).toBe(
      `Error: the egress gate could not connect to 127.0.0.1:${closedPort}: connection refused (connect ECONNREFUSED 127.0.0.1:${closedPort}) and answered the tool 502; the tool said: Unable to download webpage: HTTP Error 502: Bad Gateway`,
    );

    const unknown = await gate.session("media");
    expect(await ask(unknown, "CONNECT nothing.invalid:80 HTTP/1.1\r\nHost: nothing.invalid:80")).toMatch(
      /^HTTP\/1\.1 502 /,
    );
    expect(unknown.failure()).toMatch(
      /^nothing\.invalid:80: host not found \(getaddrinfo (ENOTFOUND|EAI_AGAIN) nothing\.invalid\)$/,
    );

    // A refusal by the policy is the answer itself, and says in its cause that the egress rules refused it.
    const policy = await gateFor().session("media");
    expect(await ask(policy, `CONNECT ${canary.host} HTTP/1.1\r\nHost: ${canary.host}`)).toMatch(/^HTTP\/1\.1 403 /);
    expect(gateVerdict(policy, childFailed)).toBe(policy.refusal());
    expect(causeText((policy.refusal() as ApiError).cause)).toMatch(
      /^refused by the egress rules: 127\.0\.0\.\d+ resolves to 127\.0\.0\.\d+, and only public addresses may be reached$/,
    );
  });

  it("carries ffmpeg's https through CONNECT and checks where an https redirect leads", async () => {
    const session = await gateFor().session("media");
    expect(await ffmpegReads(`${tls.origin}/clip.mp4`, session.proxyUrl)).toBe(0);
    expect(tls.paths).toContain("/clip.mp4");
    expect(session.refusal()).toBeNull();
    expect(await ffmpegReads(`${tls.origin}/away`, session.proxyUrl)).not.toBe(0);
    expect(tls.paths).toContain("/away");
    expect(session.refusal()?.message).toContain(canary.host);
  });

  it("chains to an http OUTBOUND_PROXY: CONNECT to the checked address for https, the absolute form for http", async () => {
    const proxy = await startHttpProxy("op%40erator:s3cret");
    try {
      const session = await gateFor(proxy.url).session("media");
      expect(await ffmpegReads(site.mp4Url, session.proxyUrl)).toBe(0);
      expect(await ffmpegReads(`${tls.origin}/clip.mp4`, session.proxyUrl)).toBe(0);
      expect(proxy.log).toContain(`GET ${site.mp4Url}`);
      expect(proxy.log).toContain(`CONNECT ${new URL(tls.origin).host}`);
      expect(new Set(proxy.credentials)).toEqual(
        new Set([`Basic ${Buffer.from("op@erator:s3cret").toString("base64")}`]),
      );
    } finally {
      await proxy.close();
    }
  });

  it("chains to a socks5 OUTBOUND_PROXY with user and password", async () => {
    const proxy = await startSocks5Proxy("operator", "pa:ss");
    try {
      const session = await gateFor(proxy.url).session("media");
      expect(await ffmpegReads(site.mp4Url, session.proxyUrl)).toBe(0);
      expect(proxy.log).toContain(site.host);
      expect(proxy.credentials).toContain("operator:pa:ss");
    } finally {
      await proxy.close();
    }
  });
});
