// The operator's cookie file (COOKIES_FILE, Netscape format) for yt-dlp. yt-dlp writes its
// cookie jar back to the file it is given at the end of every run, so it gets a private copy:
// mode 0600 in a fresh 0700 folder, read anew for every run (a changed file counts without a
// restart), removed when the run ends however it ends. The file's content is never logged.
import { upstreamFailed } from "../../http/problem.ts";

/** The file operations the service needs from its runtime (src/runtime/ implements them). */
export interface Files {
  read(path: string): Promise<Uint8Array>;
  /**
   * Writes `content` as `name` into a fresh folder named from `prefix` that only this user may
   * enter, the file readable by this user only; `remove` deletes the folder.
   */
  writePrivate(prefix: string, name: string, content: Uint8Array): Promise<{ path: string; remove(): Promise<void> }>;
}

/** Runs `use` with the path of a private copy of `file`, or with undefined when there is no file. */
export async function withCookieCopy<T>(files: Files, file: string | undefined, use: (copy: string | undefined) => Promise<T>): Promise<T> {
  if (file === undefined) return use(undefined);
  let content: Uint8Array;
  try {
    content = await files.read(file);
  } catch (error) {
    throw upstreamFailed("This server's media tool is misconfigured; try again later.", {
      cause: new Error(`COOKIES_FILE ${file} could not be read (${(error as { code?: string }).code ?? "error"})`),
    });
  }
  const copy = await files.writePrivate("media-api-cookies-", "cookies.txt", content);
  try {
    return await use(copy.path);
  } finally {
    await copy.remove();
  }
}
