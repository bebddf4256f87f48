// The file operations of the request path on node:fs.
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Files } from "../../platforms/tools/ytdlp/cookie-file.ts";

/** Files whose private copies go into fresh folders inside `parent`. */
export function nodeFilesIn(parent: string): Files {
  return {
    read: (path) => readFile(path),
    list: (folder) => readdir(folder),
    writePrivate: (prefix, name, content) => writePrivate(join(parent, prefix), name, content),
  };
}

/** The private copies in TMPDIR; the service gives its own folder in DATA_DIR (store/private-copies.ts). */
export const nodeFiles: Files = nodeFilesIn(tmpdir());

async function writePrivate(
  prefix: string,
  name: string,
  content: Uint8Array,
): Promise<{ path: string; remove(): Promise<void> }> {
  const folder = await mkdtemp(prefix);
  const remove = () => rm(folder, { recursive: true, force: true });
  const path = join(folder, name);
  try {
    await writeFile(path, content, { mode: 0o600, flag: "wx" });
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}
