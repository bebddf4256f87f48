// The answers a post gets when a media tool could not read it, the same whichever tool read it
// (yt-dlp or gallery-dl): each tool's own words go to the log through the cause, never to the caller.
import { ApiError, upstreamFailed } from "../http/problem.ts";

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
