// The operator's cookie file (COOKIES_FILE, Netscape format) for yt-dlp. yt-dlp writes its
// cookie jar back to the file it is given at the end of every run, so it gets a private copy:
// mode 0600 in a fresh 0700 folder, read anew for every run (a changed file counts without a
// restart), removed when the run ends however it ends. The file's content is never logged.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { upstreamFailed } from "../../http/problem.ts";

/** Runs `use` with the path of a private copy of `file`, or with undefined when there is no file. */
export async function withCookieCopy<T>(file: string | undefined, use: (copy: string | undefined) => Promise<T>): Promise<T> {
  if (file === undefined) return use(undefined);
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch (error) {
    throw upstreamFailed("This server's media tool is misconfigured; try again later.", {
      cause: new Error(`COOKIES_FILE ${file} could not be read (${(error as NodeJS.ErrnoException).code ?? "error"})`),
    });
  }
  const folder = await mkdtemp(join(tmpdir(), "media-api-cookies-"));
  try {
    const copy = join(folder, "cookies.txt");
    await writeFile(copy, content, { mode: 0o600, flag: "wx" });
    return await use(copy);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
