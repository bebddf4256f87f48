// The image's build as Docker would make it, without a Docker daemon (none on the machines this is
// built on): the build context holds only what deploy/Dockerfile.dockerignore lets in, each COPY of
// deploy/Dockerfile takes its sources from that context (a source it lacks fails the build), and the
// build stage's `node build.mjs` runs on what its COPY lines brought. `npm ci` is stood in for by
// the checkout's node_modules.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, matchesGlob, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scaled } from "../helpers/slowness.ts";
import { parseConfig } from "../../src/config.ts";

/** The files of a clone that the context holds: the last pattern that matches a file decides, `!` lets it in. */
function contextFiles(): string[] {
  const patterns = readFileSync("deploy/Dockerfile.dockerignore", "utf8").split("\n").map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const tracked = execFileSync("git", ["ls-files"], { encoding: "utf8" }).split("\n").filter(Boolean);
  return tracked.filter((file) => {
    let inside = true;
    for (const pattern of patterns) {
      const negated = pattern.startsWith("!");
      if (matchesGlob(file, negated ? pattern.slice(1) : pattern)) inside = negated;
    }
    return inside;
  });
}

interface Copy {
  sources: string[];
  destination: string;
}

/** The COPY lines of each stage that take their sources from the context (not `--from` a stage). */
function contextCopies(): Copy[][] {
  const stages: Copy[][] = [];
  for (const line of readFileSync("deploy/Dockerfile", "utf8").split("\n")) {
    if (/^FROM /.test(line)) stages.push([]);
    const copy = /^COPY (.+)$/.exec(line)?.[1];
    if (copy === undefined || copy.startsWith("--from")) continue;
    const words = copy.split(/\s+/);
    stages.at(-1)!.push({ sources: words.slice(0, -1), destination: words.at(-1)! });
  }
  return stages;
}

/** Does one COPY into `workdir`, as Docker does: a folder's files land under the destination, a file in it. */
function copyFromContext(copy: Copy, context: string[], workdir: string): void {
  for (const source of copy.sources) {
    const files = context.filter((file) => file === source || file.startsWith(`${source}/`));
    if (files.length === 0) throw new Error(`COPY ${source}: not in the build context`);
    for (const file of files) {
      const inside = file === source ? basename(file) : file.slice(source.length + 1);
      const target = copy.destination.endsWith("/") || copy.sources.length > 1 || file !== source
        ? join(workdir, copy.destination, inside)
        : join(workdir, copy.destination);
      mkdirSync(dirname(target), { recursive: true });
      cpSync(file, target);
    }
  }
}

describe("the image's build context", { timeout: scaled(120_000) }, () => {
  const workdir = mkdtempSync(join(tmpdir(), "media-api-image-"));
  afterAll(() => rmSync(workdir, { recursive: true, force: true }));

  it("holds every source a COPY names, and the build stage bundles from what it copied", () => {
    const context = contextFiles();
    expect(context).not.toContain("README.md");
    expect(context.filter((file) => file.startsWith("extraction-host/test_"))).toEqual([]);
    const [build, run] = contextCopies();
    for (const copy of run!) copyFromContext({ ...copy, destination: join("tmp", copy.destination) }, context, workdir);
    for (const copy of build!) copyFromContext(copy, context, workdir);
    symlinkSync(resolve("node_modules"), join(workdir, "node_modules"));

    const bundled = spawnSync(process.execPath, ["build.mjs", "--quiet"], { cwd: workdir, encoding: "utf8" });
    expect(bundled.stderr).toBe("");
    expect(bundled.status).toBe(0);
    expect(existsSync(join(workdir, "dist", "node.mjs"))).toBe(true);
    expect(existsSync(join(workdir, "dist", "admin.mjs"))).toBe(true);
  });
});

describe("the documented docker run", () => {
  it("gives the service longer to stop than its grace for downloads in flight (docker stop's own is 10 s)", () => {
    const graceS = parseConfig({}).SHUTDOWN_GRACE_MS / 1000;
    const documented = ["deploy/Dockerfile", "docs/operating.md", "README.md"].flatMap((file) =>
      readFileSync(file, "utf8").match(/docker run [^`\n]* media-api$|docker run [^`\n]* media-api(?=`)/gm) ?? []
    );
    expect(documented.length).toBeGreaterThanOrEqual(2);
    for (const command of documented) {
      const timeout = Number(/--stop-timeout (\d+)/.exec(command)?.[1] ?? 10);
      expect(timeout, command).toBeGreaterThan(graceS + 5);
    }
  });
});
