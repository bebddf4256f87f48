// Bundles each entry into dist/. SQL migrations are inlined as text; the database drivers stay
// external because PGlite loads its WASM from its own package folder: every runtime imports them
// from node_modules (Deno too, as a package.json sits beside it).
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const quiet = process.argv.includes("--quiet");

const sqlAsText = {
  name: "sql-as-text",
  setup(b) {
    b.onResolve({ filter: /\.sql\?raw$/ }, (args) => ({
      path: new URL(args.path.replace(/\?raw$/, ""), `file://${args.resolveDir}/`).pathname,
      namespace: "sql-text",
    }));
    b.onLoad({ filter: /.*/, namespace: "sql-text" }, async (args) => ({
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
};

await build({
  entryPoints: entries,
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "es2022",
  sourcemap: true,
  external: ["postgres", "@electric-sql/pglite"],
  plugins: [sqlAsText],
  logLevel: quiet ? "error" : "info",
});

// The data folder a new embedded store starts from (src/store/pglite-template.ts): PGlite's initdb
// run once here rather than on every user's first start. Made again only when PGlite's version
// changes, since a folder is only readable by the version that wrote it.
const pgliteVersion = JSON.parse(readFileSync("node_modules/@electric-sql/pglite/package.json", "utf8")).version;
const template = "dist/pglite-template";
const stamp = `${template}.version`;
if (!existsSync(template) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== pgliteVersion) {
  const { PGlite } = await import("@electric-sql/pglite");
  const partial = `${template}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await (await PGlite.create(partial)).close();
  rmSync(template, { recursive: true, force: true });
  renameSync(partial, template);
  writeFileSync(stamp, pgliteVersion);
  if (!quiet) console.log(`made ${template} (PGlite ${pgliteVersion})`);
}
