// The file operations of the request path on node:fs.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Files } from "../../platforms/ytdlp/cookie-file.ts";

export const nodeFiles: Files = {
  read: (path) => readFile(path),
  async writePrivate(prefix, name, content) {
    const folder = await mkdtemp(join(tmpdir(), prefix));
    const remove = () => rm(folder, { recursive: true, force: true });
    const path = join(folder, name);
    try {
      await writeFile(path, content, { mode: 0o600, flag: "wx" });
    } catch (error) {
      await remove();
      throw error;
    }
    return { path, remove };
  },
};
