// A local stand-in for the npm registry, serving packages installed in node_modules as their
// registry would: a packument per name and a gzipped tarball per version, with its integrity.
// Over https with a certificate made for the occasion, as the real registry (yt-dlp hides Deno's
// "Download https://..." lines, and takes any other output as a failure). Deno finds it through
// NPM_CONFIG_REGISTRY and trusts its certificate authority through DENO_CERT.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface FakeNpmRegistry {
  /** `https://127.0.0.1:<port>/` */
  url: string;
  /** The certificate authority to trust (PEM file). */
  caFile: string;
  /** Paths requested so far. */
  requests: string[];
  close(): Promise<void>;
}

/** The tarball of an installed package, its folder renamed to `package/` as npm packs it. */
async function packInstalled(name: string): Promise<{ version: string; tarball: Buffer }> {
  const folder = path.resolve("node_modules", name);
  const { version } = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")) as { version: string };
  const { stdout } = await run("tar", [
    "-czf",
    "-",
    "-C",
    path.dirname(folder),
    `--transform=s,^${path.basename(folder)},package,`,
    path.basename(folder),
  ], {
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { version, tarball: stdout };
}

export async function startFakeNpmRegistry(names: readonly string[]): Promise<FakeNpmRegistry> {
  const packages = new Map(await Promise.all(names.map(async (name) => [name, await packInstalled(name)] as const)));
  const requests: string[] = [];
  const certDir = mkdtempSync(path.join(tmpdir(), "npm-registry-"));
  const [caFile, certFile, keyFile] = ["ca.pem", "cert.pem", "key.pem"].map((name) => path.join(certDir, name)) as [
    string,
    string,
    string,
  ];
  // Deno (rustls) refuses a self-signed certificate as the server's own: a CA signs it.
  const openssl = (...args: string[]) => run("openssl", args, { cwd: certDir });
  await openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    caFile,
    "-days",
    "1",
    "-subj",
    "/CN=fake npm registry CA",
  );
  await openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    "cert.csr",
    "-subj",
    "/CN=127.0.0.1",
  );
  writeFileSync(path.join(certDir, "cert.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  await openssl(
    "x509",
    "-req",
    "-in",
    "cert.csr",
    "-CA",
    caFile,
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    certFile,
    "-days",
    "1",
    "-extfile",
    "cert.ext",
  );
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? "/", "http://registry").pathname);
    requests.push(urlPath);
    const tarball = /^\/(.+)\/-\/[^/]+\.tgz$/.exec(urlPath);
    const name = tarball ? tarball[1]! : urlPath.slice(1);
    const pkg = packages.get(name);
    if (!pkg) return void res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
    if (tarball) return void res.writeHead(200, { "content-type": "application/octet-stream" }).end(pkg.tarball);
    const integrity = `sha512-${createHash("sha512").update(pkg.tarball).digest("base64")}`;
    const manifest = {
      name,
      version: pkg.version,
      dist: {
        tarball: `${origin}/${name}/-/${path.basename(name)}-${pkg.version}.tgz`,
        integrity,
        shasum: createHash("sha1").update(pkg.tarball).digest("hex"),
      },
    };
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({ name, "dist-tags": { latest: pkg.version }, versions: { [pkg.version]: manifest } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    caFile,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        rmSync(certDir, { recursive: true, force: true });
      }),
  };
}
