// The answers a post gets when a media tool could not read it, the same whichever tool read it
// (yt-dlp or gallery-dl): each tool's own words go to the log through the cause, never to the caller.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { blockedError } from "./blocked.ts";
import type { PostRecord } from "./records.ts";

export function noMediaFound(cause: Error): ApiError {
  return new ApiError(
    "unsupported_url",
    "No downloadable media was found at this link; pass the link of a single post or video.",
    { cause },
  );
}

export function postNotFound(cause: Error): ApiError {
  return new ApiError("not_found", "The post does not exist, was removed or is private.", { cause });
}

/** The tool failed in a way that says nothing about the request: it only reads the post, for `post` and `download` alike. */
export function postUnreadable(tool: "yt-dlp" | "gallery-dl", exitCode: number | null, cause: Error): ApiError {
  return upstreamFailed(
    `The post could not be read from the source site (${tool} ${
      exitCode === null ? "was killed" : `exit ${exitCode}`
    }); try again later.`,
    { cause },
  );
}

/** The tool said it succeeded but printed what is not its JSON. */
export function unreadableOutput(cause: unknown): ApiError {
  return upstreamFailed("The media tool returned unreadable output for this link; try again later.", { cause });
}

/** Whether a record holds nothing for its caller: no item to download and no text. Such a post is never answered 200. */
export function isEmptyPost(record: Pick<PostRecord, "media" | "text">): boolean {
  return record.media.length === 0 && record.text === null;
}

/** 404 no_media: the platform showed the post (or the page its list) with nothing to download in it. */
export function nothingToDownload(cause?: Error): ApiError {
  return new ApiError("no_media", "The platform showed this post with no video, image or text in it.", { cause });
}

// What a tool logs when it could not reach the site (Python's requests and urllib3, as gallery-dl
// and yt-dlp print them), or when the site failed.
const unreachable =
  /ConnectionError|Max retries exceeded|Failed to establish a new connection|Connection (refused|reset|aborted)|Name or service not known|Temporary failure in name resolution|Network is unreachable|timed out|ProxyError|SSLError|HttpError: '5\d\d|HTTP Error 5\d\d/i;

/**
 * The lines of a tool's log that warn or fail, for an answer's detail: the tool's own words, with
 * every link and IP address left out (a link may carry the gate's credentials, an address is one
 * inside the network: the gate's, a proxy's).
 */
export function toolWords(log: string): string {
  const lines = log.split(/\r?\n/).filter((line) => /\[(warning|error)\]|^(WARNING|ERROR):/.test(line));
  const words = lines.map((line) =>
    line.replace(/\bhttps?:\/\/\S+/gi, "<link>").replace(
      /\b\d{1,3}(\.\d{1,3}){3}\b|\[[0-9a-f:]*:[0-9a-f:]*\]/gi,
      "<address>",
    )
      .trim()
  ).join(" / ");
  return words.length > 300 ? `${words.slice(0, 299)}…` : words;
}

/**
 * The answer for a post a tool read as empty, from what it logged on the way (a warning it went on
 * after, printing no item): a login wall is the platform's refusal (502 upstream_blocked), a site it
 * could not reach a failure (502 upstream_failed, the tool's words in the detail), else the platform
 * showed the post without media (404 no_media).
 */
export function emptyPostError(tool: "yt-dlp" | "gallery-dl", log: string): ApiError {
  const words = toolWords(log);
  const cause = new Error(words || "no warning");
  const refused = blockedError(log, tool, cause.message);
  if (refused) return refused;
  if (unreachable.test(log)) {
    return upstreamFailed(`${tool} could not reach the site and read nothing of the post: ${words}`, { cause });
  }
  return nothingToDownload(cause);
}
