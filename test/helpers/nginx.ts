// The nginx block of docs/operating.md, run as documented by the nginx of this machine (installed by
// `scripts/setup-debian.sh --test`): only its ports and certificate are this test's.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { until } from "./until.ts";

/** The one ```nginx block of docs/operating.md, as an operator copies it. */
export function documentedNginxBlock(): string {
  const doc = readFileSync("docs/operating.md", "utf8");
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error("docs/operating.md has no nginx block");
  return block;
}

export interface NginxSite {
  /** Where nginx listens with TLS on 127.0.0.1. */
  port: number;
  /** The instances, in place of the block's 8081 and 8082. */
  upstreams: [number, number];
  /** A folder of the test's own for the configuration, certificate, logs and temporary files. */
  dir: string;
}

/** A whole configuration: the documented block inside the `http` context nginx.conf gives it on Debian. */
export function nginxConfiguration(site: NginxSite): string {
  const { port, upstreams, dir } = site;
  selfSignedCertificate(dir);
  const block = documentedNginxBlock()
    .replace(/listen 443 /, `listen 127.0.0.1:${port} `)
    .replace("127.0.0.1:8081", `127.0.0.1:${upstreams[0]}`)
    .replace("127.0.0.1:8082", `127.0.0.1:${upstreams[1]}`)
    .replace(/\/etc\/letsencrypt\/live\/media\.example\.org\//g, `${dir}/`);
  mkdirSync(join(dir, "temp"), { recursive: true });
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `${kind}_temp_path ${dir}/temp/${kind};`)
    .join("\n  ");
  return `daemon off;
user root;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  ${temp}
${block}
}
`;
}

function selfSignedCertificate(dir: string): void {
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=media.example.org",
    "-keyout",
    join(dir, "privkey.pem"),
    "-out",
    join(dir, "fullchain.pem"),
  ], { stdio: "ignore" });
}

function writeConfiguration(site: NginxSite): string {
  const file = join(site.dir, "nginx.conf");
  writeFileSync(file, nginxConfiguration(site));
  return file;
}

/** `nginx -t` on the configuration: its exit code and what it said. */
export function checkNginx(site: NginxSite): { code: number | null; output: string } {
  const result = spawnSync("nginx", ["-t", "-p", site.dir, "-c", writeConfiguration(site)], { encoding: "utf8" });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

export interface RunningNginx {
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startNginx(site: NginxSite): Promise<RunningNginx> {
  const child = spawn("nginx", ["-p", site.dir, "-c", writeConfiguration(site)], { stdio: "ignore" });
  const exited = once(child, "exit");
  await until("nginx listening", () =>
    Promise.race([
      accepts(site.port),
      exited.then(() => {
        throw new Error(`nginx exited: ${readFileSync(join(site.dir, "error.log"), "utf8")}`);
      }),
    ]), 30_000);
  return {
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
