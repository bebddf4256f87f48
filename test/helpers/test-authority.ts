// A certificate authority made for one test run, and a server certificate it signs: what a local fake of a platform
// answers TLS with, for the tools told to trust the authority (gallery-dl's GALLERY_DL_CA_FILE, yt-dlp's wrapper
// below).
import { execFile } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A test authority (`caFile`) and a certificate for `hosts` signed by it, made with openssl in `dir`. */
export async function makeCertificates(
  dir: string,
  hosts: readonly string[],
  name: string,
): Promise<{ caFile: string; key: Buffer; cert: Buffer }> {
  const openssl = (...args: string[]) => run("openssl", args, { cwd: dir });
  await writeFile(
    path.join(dir, "ca.ext"),
    "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n",
  );
  await writeFile(
    path.join(dir, "leaf.ext"),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nauthorityKeyIdentifier=keyid\nsubjectAltName=${
      hosts.map((h) => `DNS:${h}`).join(",")
    }\n`,
  );
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await openssl("req", ...ec, "-keyout", "ca.key", "-out", "ca.csr", "-subj", "/CN=media-api test authority");
  await openssl(
    "x509",
    "-req",
    "-in",
    "ca.csr",
    "-signkey",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-extfile",
    "ca.ext",
  );
  await openssl("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${name}`);
  await openssl(
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "leaf.pem",
    "-days",
    "2",
    "-extfile",
    "leaf.ext",
  );
  return {
    caFile: path.join(dir, "ca.pem"),
    key: await readFile(path.join(dir, "leaf.key")),
    cert: await readFile(path.join(dir, "leaf.pem")),
  };
}

/**
 * A wrapper of the installed yt-dlp in `dir` that trusts only the test authority (its system store, named by
 * SSL_CERT_FILE): yt-dlp has no option of a CA file.
 */
export async function ytdlpTrusting(dir: string, caFile: string): Promise<string> {
  const wrapper = path.join(dir, "yt-dlp");
  await writeFile(wrapper, `#!/bin/sh\nSSL_CERT_FILE='${caFile}' exec yt-dlp --compat-options no-certifi "$@"\n`);
  await chmod(wrapper, 0o755);
  return wrapper;
}
