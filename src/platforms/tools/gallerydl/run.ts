// Runs `gallery-dl -j` on a post URL (through the Extractor seam, like yt-dlp) and returns its
// messages, or throws the classified ApiError. gallery-dl prints every message as JSON: the
// post's metadata (2), each file's URL with its metadata (3), a link it would hand to another
// extractor (6), and an extractor's exception (-1); it exits 0 even then, and logs an error it
// recovers from on stderr, so both are read for the failure.
import { z } from "zod";
import type { ApiError } from "../../../http/problem.ts";
import type { Extractor } from "../../../processes/extractor.ts";
import { blockedError } from "../../blocked.ts";
import { platformList } from "../../list.ts";
import { noMediaFound, postNotFound, postUnreadable, unreadableOutput } from "../../post-errors.ts";
import type { RunAccess } from "../tool-access.ts";

export interface GalleryRunOptions extends RunAccess {
  extractor: Extractor;
  /** Kills gallery-dl after this long (504 `upstream_timeout`). */
  timeoutMs: number;
  /** gallery-dl's own per-connection timeout. */
  socketTimeoutSec: number;
  /** A PEM file of certificate authorities gallery-dl trusts instead of its default ones (GALLERY_DL_CA_FILE). */
  caFile?: string;
  /**
   * Which files (and posts) to describe, in gallery-dl's range syntax: `1-20`. gallery-dl stops
   * reading once past it, so a page of thousands is not read, nor held, whole.
   */
  items: string;
  /** false: the posts alone, none of their files (a profile's listing for a job). */
  files?: boolean;
  signal?: AbortSignal;
}

const Metadata = z.record(z.string(), z.unknown());
export type GalleryMetadata = z.infer<typeof Metadata>;

const Message = z.union([
  z.tuple([z.literal(2), Metadata]),
  z.tuple([z.literal(3), z.string(), Metadata]),
  z.tuple([z.literal(6), z.string(), Metadata]),
  z.tuple([z.literal(-1), z.looseObject({ error: z.string().catch("Error"), message: z.string().catch("") })]),
]);
const Messages = z.array(Message);

/**
 * What gallery-dl said of a post: its metadata and its files in the platform's order, and its log (warnings it went
 * on after); of a listing, each post's metadata.
 */
export interface GalleryOutput {
  posts: GalleryMetadata[];
  files: { url: string; metadata: GalleryMetadata }[];
  log: string;
}

export function galleryArgs(
  url: string,
  options: Pick<GalleryRunOptions, "socketTimeoutSec" | "proxy" | "cookiesFile" | "caFile" | "items" | "files">,
): string[] {
  return [
    // --config-ignore: a gallery-dl.conf in /etc or the home folder must not change what runs.
    "-j",
    "--config-ignore",
    "--http-timeout",
    String(options.socketTimeoutSec),
    // Fail at once rather than retry or wait out a platform's rate limit (60 s by default):
    // the caller's request is waiting. One post is one or two requests, so no pause between them.
    "-o",
    "retries=0",
    "-o",
    "sleep-request=0",
    // The options each platform's extractor needs (its module's `galleryDlOptions`).
    ...platformList.flatMap(({ galleryDlOptions }) => (galleryDlOptions ?? []).flatMap((option) => ["-o", option])),
    // A filter no file passes keeps a listing's output to its posts.
    ...(options.files === false ? ["--filter", "False"] : ["--range", options.items]),
    "--post-range",
    options.items,
    ...(options.proxy ? ["--proxy", options.proxy] : []),
    ...(options.cookiesFile ? ["--cookies", options.cookiesFile] : []),
    ...(options.caFile ? ["-o", `verify=${options.caFile}`] : []),
    "--",
    url,
  ];
}

/** The first error line of the log without gallery-dl's `[category][error]` prefix, whole (the log line bounds its causes). */
function reasonOf(log: string): string {
  const lines = log.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  const line = lines.find((l) => /\[error\]|^\w+Error: /.test(l)) ?? lines.at(-1) ?? "no error message";
  return line.replace(/^(\[[^\]]+\])+\s*/, "");
}

/** The ApiError of a failed run, from its log (stderr and the exceptions it printed). */
export function classifyGalleryFailure(exitCode: number | null, log: string): ApiError {
  const cause = new Error(reasonOf(log));
  const refused = blockedError(log, "gallery-dl", cause.message);
  if (refused) return refused;
  if (/NotFoundError|'(404|410) [^']*' for|not available|could not be found|has been deleted|\bdeleted\b/i.test(log)) {
    return postNotFound(cause);
  }
  if (/Unsupported URL/i.test(log)) {
    return noMediaFound(cause);
  }
  return postUnreadable("gallery-dl", exitCode, cause);
}

export async function runGallery(url: string, options: GalleryRunOptions): Promise<GalleryOutput> {
  const output = await options.extractor.run({
    tool: "gallery-dl",
    args: galleryArgs(url, options),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  if (output.exitCode !== 0) throw classifyGalleryFailure(output.exitCode, output.stderr);
  let parsed: z.infer<typeof Messages>;
  try {
    parsed = Messages.parse(JSON.parse(output.stdout));
  } catch (cause) {
    throw unreadableOutput(cause);
  }
  const errors = parsed.flatMap((message) => (message[0] === -1 ? [`${message[1].error}: ${message[1].message}`] : []));
  const result: GalleryOutput = { posts: [], files: [], log: output.stderr };
  for (const message of parsed) {
    if (message[0] === 2) result.posts.push(message[1]);
    if (message[0] === 3) result.files.push({ url: message[1], metadata: message[2] });
  }
  // A file or two and then an exception is a post read in part: not a description to give out.
  const logged = /\[error\]/.test(output.stderr);
  const read = options.files === false ? result.posts : result.files;
  if (errors.length > 0 || (logged && read.length === 0)) {
    throw classifyGalleryFailure(0, [output.stderr, ...errors].join("\n"));
  }
  return result;
}
