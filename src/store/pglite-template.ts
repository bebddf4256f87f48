// A first start of the embedded store copies a data folder that build.mjs made with PGlite's
// initdb (dist/pglite-template) instead of running initdb: initdb takes 4-6 s and holds 800 MB
// resident for the rest of the process's life, a copy of its ~40 MB result takes a fraction of a
// second and the process never grows past what a restart holds.
import { cpSync, existsSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Beside the bundle in dist/. Run from source there is none, and PGlite runs initdb itself. */
export const bundledTemplate = fileURLToPath(new URL("./pglite-template", import.meta.url));

/** Fills an empty or missing data folder from `template`; a folder that holds anything is left as it is. */
export function seedFromTemplate(folder: string, template: string): void {
  if (!existsSync(template)) return;
  if (existsSync(folder)) {
    if (readdirSync(folder).length > 0) return;
    rmdirSync(folder);
  }
  // Copied under another name and renamed, so a crash mid-copy leaves no half folder that looks
  // like a database.
  const partial = `${folder}.partial`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(template, partial, { recursive: true });
  renameSync(partial, folder);
}
