// A platform that refuses this server rather than the request: a bot check, a sign-in or age wall,
// its own rate limit. The caller cannot change that; the operator can (cookies, a proxy with a
// better address, newer media tools), so the log line names the remedy and the answer says who
// can act. The same for yt-dlp and gallery-dl, whose logs say it in their own words; only their
// words and the platform's count, never text quoted from a link (ownWords).
import { ApiError } from "../http/problem.ts";

/** How a platform refuses whoever is not signed in. */
const signIn = "a sign-in";

const blockedKinds: { pattern: RegExp; kind: string }[] = [
  { pattern: /confirm you.?re not a bot|redirect to challenge page|ChallengeError/i, kind: "a bot check" },
  {
    pattern: /Sign in to confirm your age|age.?restricted|inappropriate for some users/i,
    kind: "an age check that needs a signed-in account",
  },
  { pattern: /rate.?limit|HTTP Error 429|Too Many Requests/i, kind: "its rate limit" },
  {
    pattern:
      /login required|log ?in required|requires? (a )?log ?in|account authentication is required|redirect to login page|AuthorizationError|AuthenticationError/i,
    kind: signIn,
  },
];

export const blockedRemedy =
  "give yt-dlp and gallery-dl the cookies of a signed-in browser (COOKIES_FILE), send them through a proxy with a better address (OUTBOUND_PROXY), or update them (bash scripts/setup-debian.sh --update-tools)";

/** The cause of an `upstream_blocked`: the tool's words, logged with the remedy, and how the platform refused. */
export class RefusalCause extends Error {
  constructor(
    readonly tool: "yt-dlp" | "gallery-dl",
    readonly reason: string,
    readonly kind: string,
  ) {
    super(`platform refused ${tool} (${reason}); remedy: ${blockedRemedy}`);
  }
}

/**
 * The words of a tool's log that are the tool's own or the platform's. A log quotes links, the
 * caller's or ones a page named, and anyone can make a link read "rate-limit", "age-restricted"
 * or "Too Many Requests": so out go URLs, the id yt-dlp prints before its message (cut from the
 * link), gallery-dl's quoted strings, and the reason phrase of any HTTP status but 403 and 429 (a
 * 404 may say anything). yt-dlp's generic extractor reads anyone's page and has no words of a
 * platform: of its lines only the status of the answer stays.
 */
function ownWords(log: string): string {
  return log.split(/\r?\n/).map(lineWords).join("\n");
}

function lineWords(line: string): string {
  // gallery-dl's "HttpError: '429 Too Many Requests' for '<url>'" as yt-dlp says it.
  const text = line.replace(/HttpError: '(\d{3}) ([^'\n]*)'/g, "HTTP Error $1: $2");
  if (/^\s*(?:ERROR:\s*)?\[generic\]/.test(text)) {
    const status = /\(caused by <HTTPError (\d{3}): ([^>]*)>\)\s*$/.exec(text);
    return status === null ? "" : statusWords(status[1]!, status[2]!);
  }
  // yt-dlp's "[<extractor>] <id>: <message>": the id is the link's; a platform's ids hold no space.
  let words = text.replace(/^(\s*(?:ERROR:|WARNING:)?\s*\[[^\]\s]+\]\s+)\S*?:\s/, "$1").replace(
    /\bhttps?:\/\/\S+/gi,
    "",
  );
  // gallery-dl quotes what it was given ("[<category>][error] ... 'rate-limit'"); yt-dlp's words have apostrophes.
  if (/^\s*(\[[\w-]+\]){2}|^\s*[A-Z]\w*Error: /.test(text)) words = words.replace(/'[^'\n]*'/g, "");
  return words.replace(
    /HTTP ?Error:? (\d{3}):? ([^\n(>]*)/g,
    (_, status: string, reason: string) => statusWords(status, reason),
  );
}

/** "HTTP Error 429: Too Many Requests"; the reason phrase of a status that is no refusal left out. */
function statusWords(status: string, reason: string): string {
  return status === "403" || status === "429" ? `HTTP Error ${status}: ${reason.trim()}` : `HTTP Error ${status}`;
}

/** How a platform refused this server, from a tool's log ("a bot check"); null when it did not. */
export function blockedKindOf(log: string): string | null {
  const words = ownWords(log);
  return blockedKinds.find(({ pattern }) => pattern.test(words))?.kind ?? null;
}

/** 502 upstream_blocked when the tool's log says the platform refused this server; else null. */
export function blockedError(log: string, tool: "yt-dlp" | "gallery-dl", reason: string): ApiError | null {
  const kind = blockedKindOf(log);
  if (kind === null) return null;
  return new ApiError(
    "upstream_blocked",
    `The platform refused this server with ${kind}, not because of your request. The operator of this service can act on it; try again later.`,
    { cause: new RefusalCause(tool, reason, kind) },
  );
}

/** Whether `error` is a platform's refusal of whoever is not signed in (its sign-in page, a "login required"). */
export const isSignInWall = (error: unknown): boolean =>
  error instanceof ApiError && error.cause instanceof RefusalCause && error.cause.kind === signIn;
