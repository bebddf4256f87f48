// Bundles each entry into dist/. SQL migrations, the extraction host's Python program and the
// tools' watchdog script (src/processes/watchdog.sh) are inlined as text; the database drivers
// stay external because PGlite loads its WASM from its own package folder, and the queue (pg-boss)
// because its driver `pg` is CommonJS, which an ESM bundle cannot require: every runtime imports
// them from node_modules (Deno too, as a package.json sits beside it).
// With --if-stale (`npm run admin`) the bundles are left as they are when none of their sources
// changed since they were made: the bundling alone costs each command most of a second.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const quiet = process.argv.includes("--quiet");
const ifStale = process.argv.includes("--if-stale");

const rawAsText = {
  name: "raw-as-text",
  setup(b) {
    b.onResolve({ filter: /\.(sql|py|sh)\?raw$/ }, (args) => ({
      path: new URL(args.path.replace(/\?raw$/, ""), `file://${args.resolveDir}/`).pathname,
      namespace: "raw-text",
    }));
    b.onLoad({ filter: /.*/, namespace: "raw-text" }, async (args) => ({
      contents: await import("node:fs/promises").then((fs) => fs.readFile(args.path, "utf8")),
      loader: "text",
    }));
  },
};

// One bundle per runtime, each the same handler code behind that runtime's entry file.
const entries = {
  node: "src/runtime/node.ts",
  bun: "src/runtime/bun.ts",
  deno: "src/runtime/deno.ts",
  admin: "src/cli/main.ts",
  // The embedded store's thread (src/store/pglite-thread.ts), which the bundles above start.
  "pglite-worker": "src/store/pglite-worker.ts",
};

/** Newest change among what goes into a bundle: the sources (the extraction host's too), this file, and the locked dependencies (zod is bundled). */
function newestInput() {
  const files = [
    "build.mjs",
    "package.json",
    "package-lock.json",
    // The host's modules and claims.py, which are bundled; not their tests.
    ...readdirSync("extraction-host").filter((file) => file.endsWith(".py") && !file.startsWith("test_")).map((file) =>
      join("extraction-host", file)
    ),
    ...readdirSync("src", { recursive: true }).map((file) => join("src", file)),
  ];
  return Math.max(...files.map((file) => statSync(file).mtimeMs));
}

/** Oldest bundle, or 0 when one is missing. */
function oldestOutput() {
  const outputs = Object.keys(entries).map((name) => `dist/${name}.mjs`);
  return outputs.every((file) => existsSync(file)) ? Math.min(...outputs.map((file) => statSync(file).mtimeMs)) : 0;
}

/** esbuild, or null where it is not installed: a production install (`npm prune --omit=dev`). */
async function bundler() {
  try {
    return await import("esbuild");
  } catch (error) {
    if (error.code === "ERR_MODULE_NOT_FOUND") return null;
    throw error;
  }
}

const esbuild = !ifStale || oldestOutput() <= newestInput() ? await bundler() : undefined;
// `npm run admin` after the prune (which also makes package-lock.json newer than dist/): the
// bundles as built serve, since they need no dev tool.
if (esbuild === null && !(ifStale && oldestOutput() > 0)) {
  throw new Error("esbuild is not installed (a production install): run npm ci, then node build.mjs");
}
if (esbuild) {
  await esbuild.build({
    entryPoints: entries,
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "es2022",
    sourcemap: true,
    external: ["postgres", "@electric-sql/pglite", "pg-boss"],
    plugins: [rawAsText],
    logLevel: quiet ? "error" : "info",
  });
}

// The data folder a new embedded store starts from (src/store/pglite-template.ts): PGlite's initdb
// and the migrations, run once here rather than on every user's first start. The bundled command
// line does it, as it opens (and migrates) a store of its own when no service runs. Made again only
// when PGlite or a migration changes, since a folder is only readable by the version that wrote it.
// It must hold nothing secret, as every store of the build copies it: the link secret is made at a
// store's first start (src/store/link-secret.ts).
const template = "dist/pglite-template";
const stamp = `${template}.version`;
const migrationsDir = "src/store/migrations";
const hash = createHash("sha256").update(readFileSync("node_modules/@electric-sql/pglite/package.json"));
for (const file of readdirSync(migrationsDir).sort()) hash.update(file).update(readFileSync(join(migrationsDir, file)));
const wanted = hash.digest("hex");
if (!existsSync(template) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== wanted) {
  rmSync(template, { recursive: true, force: true });
  const scratch = mkdtempSync(join(tmpdir(), "pglite-template-"));
  try {
    execFileSync(process.execPath, ["dist/admin.mjs", "users", "list"], {
      env: { PATH: process.env.PATH, DATA_DIR: scratch },
      stdio: ["ignore", "ignore", "inherit"],
    });
    renameSync(join(scratch, "pglite"), template);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  writeFileSync(stamp, wanted);
  if (!quiet) console.log(`made ${template}`);
}
// At every build, so a template an older build left private is mended too.
readableByAll(template);

/**
 * PGlite makes its folder the builder's alone (0700, files 0600 or 0666), but the service often runs as
 * another user (systemd's media-api, the image's node), who only reads and copies it: 0755 and 0644.
 */
function readableByAll(folder) {
  // Only what differs: `npm run admin` may run as a user who may read the template but not chmod it.
  const ensure = (path, mode) => (statSync(path).mode & 0o777) !== mode && chmodSync(path, mode);
  ensure(folder, 0o755);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) readableByAll(path);
    else ensure(path, 0o644);
  }
}
