// Turns a failed yt-dlp run into the one error type. yt-dlp exits 1 for every failure (2 for
// a bad option), so the cause is read from stderr. Nothing here is ever a 500: a failure of
// the source is a 502, a request the source cannot answer is a 400 or 404. Every detail is in
// our own words: yt-dlp's (extractor names, Python exceptions, what a host inside a network
// answered) go to the log through the error's cause, never to the caller.
import { ApiError } from "../../../http/problem.ts";
import { blockedError } from "../../blocked.ts";
import { noMediaFound, postNotFound, postUnreadable } from "../../post-errors.ts";

interface Rule {
  pattern: RegExp;
  make: (cause: Error) => ApiError;
}

const rules: Rule[] = [
  {
    pattern:
      /Unsupported URL|is not a valid URL|No video formats found|There(?:'s| is) no video in this|No media found/i,
    make: noMediaFound,
  },
  {
    // A live stream (an X broadcast or Space, a premiere) that has not begun, or that ended without a recording kept.
    pattern: /replay is disabled|not downloadable yet|has not yet started|not started yet/i,
    make: (cause) =>
      new ApiError(
        "no_media",
        "This live stream has nothing to download: it has not begun, or it ended without a recording kept.",
        { cause },
      ),
  },
  {
    // A link cut short, or one that names no video ("watch?v="): no retry can help.
    pattern: /Incomplete \S+ ID|looks truncated|Unable to extract (?:video )?id\b/i,
    make: (cause) =>
      new ApiError(
        "unsupported_url",
        "This link names no video, or names it only in part; copy the whole link of the post or video.",
        { cause },
      ),
  },
  {
    pattern: /Requested format is not available|Invalid format specification|format spec/i,
    make: (cause) =>
      new ApiError(
        "format_not_available",
        "The `format` selector is not valid or matches no format of this video; use a formatId from /api/v1/post or leave `format` out.",
        { cause },
      ),
  },
  {
    pattern:
      /HTTP Error (404|410)|Video unavailable|Private video|This video (is private|has been removed|is unavailable)/i,
    make: postNotFound,
  },
];

/** The line the extraction host's PO-token provider ends a job with when the operator's token server fails (extraction-host/pot.py). */
const tokenServerFailure = /^ERROR: \[pot:media-api\] the PO token server /m;

/**
 * What yt-dlp appends to an error it did not expect ("; please report this issue on  https://...
 * Confirm you are on the latest version using  yt-dlp -U"): of no use to an operator, and long
 * enough to push the useful part out of a log line.
 */
const bugReportRequest = /;?\s*please report this issue on\s.*?yt-dlp -U\.?/is;

/** The first `ERROR:` line of stderr without its prefix and yt-dlp's bug-report request; else the last non-empty line. */
function reasonOf(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  const line = lines.find((l) => l.startsWith("ERROR:")) ?? lines.at(-1) ?? "no error message";
  return line.replace(/^ERROR:\s*/, "").replace(/^\[[^\]]+\]\s*/, "").replace(bugReportRequest, "").trim();
}

export function classifyYtdlpFailure(exitCode: number | null, stderr: string): ApiError {
  const cause = new Error(reasonOf(stderr));
  if (tokenServerFailure.test(stderr)) {
    return new ApiError(
      "upstream_failed",
      "This service's source of YouTube's proof-of-origin tokens did not answer in time, not because of your request. The operator of this service can act on it; try again later.",
      { cause },
    );
  }
  const refused = blockedError(stderr, "yt-dlp", cause.message);
  if (refused) return refused;
  const rule = rules.find((r) => r.pattern.test(stderr));
  if (rule) return rule.make(cause);
  // yt-dlp only reads the page here (the media come later, through ffmpeg).
  return postUnreadable("yt-dlp", exitCode, cause);
}
