// The operator's cookie file (COOKIES_FILE, Netscape format) for yt-dlp and X. yt-dlp writes its
// cookie jar back to the file it is given at the end of every run, so it gets a private copy:
// mode 0600 in a fresh 0700 folder, read anew for every run (a changed file counts without a
// restart), removed when the run ends however it ends. The file's content is never logged.
/** The file operations the service needs from its runtime (src/runtime/ implements them). */
export interface Files {
  read(path: string): Promise<Uint8Array>;
  /** The names of a folder's entries (a jar's account files). */
  list(folder: string): Promise<string[]>;
  /**
   * Writes `content` as `name` into a fresh folder named from `prefix` that only this user may
   * enter, the file readable by this user only; `remove` deletes the folder.
   */
  writePrivate(prefix: string, name: string, content: Uint8Array): Promise<{ path: string; remove(): Promise<void> }>;
}

/**
 * The operator's cookie file as the service uses it: read anew for every use, so a changed file
 * counts without a restart, and left out when it cannot be used (unreadable, or no cookie file at
 * all), so that page mode goes on without the operator's sessions rather than failing every run.
 */
export interface CookieFile {
  /** The file's content; null when it cannot be used, after telling the fault (once until it changes). */
  read(): Promise<Uint8Array | null>;
  /** Why the file cannot be used now, naming COOKIES_FILE (for /readyz); null when it can. */
  fault(): Promise<string | null>;
}

export function cookieFile(files: Files, path: string, onFault: (fault: string) => void): CookieFile {
  let told: string | null = null;
  const load = async (): Promise<{ content: Uint8Array } | { fault: string }> => {
    let content: Uint8Array;
    try {
      content = await files.read(path);
    } catch (error) {
      return {
        fault: `COOKIES_FILE ${path} could not be read (${
          (error as { code?: string }).code ?? "error"
        }); going on without it`,
      };
    }
    const fault = cookieFileFault(content);
    return fault === null
      ? { content }
      : { fault: `COOKIES_FILE ${path} is not a Netscape cookie file (${fault}); going on without it` };
  };
  return {
    async read() {
      const loaded = await load();
      if ("content" in loaded) {
        told = null;
        return loaded.content;
      }
      if (loaded.fault !== told) onFault(loaded.fault);
      told = loaded.fault;
      return null;
    },
    fault: async () => {
      const loaded = await load();
      return "fault" in loaded ? loaded.fault : null;
    },
  };
}

// The first line yt-dlp (Python's MozillaCookieJar) requires of a cookie file.
const NETSCAPE_HEADER = /#( Netscape)? HTTP Cookie File/;

/** What makes `content` no cookie file that yt-dlp loads, or null: yt-dlp stops on each of these. */
export function cookieFileFault(content: Uint8Array): string | null {
  if (content.includes(0)) return "it holds NUL bytes";
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(content);
  } catch {
    return "it is not UTF-8 text";
  }
  if (!NETSCAPE_HEADER.test(text.split("\n", 1)[0]!)) return 'its first line is not "# Netscape HTTP Cookie File"';
  return null;
}

/** Runs `use` with the path of a private copy of `content`, or with undefined when there is none. */
export async function withCookieCopy<T>(
  files: Files,
  content: Uint8Array | null,
  use: (copy: string | undefined) => Promise<T>,
): Promise<T> {
  if (content === null) return use(undefined);
  const copy = await files.writePrivate("media-api-cookies-", "cookies.txt", content);
  try {
    return await use(copy.path);
  } finally {
    await copy.remove();
  }
}
