// A platform that refuses this server rather than the request: a bot check, a sign-in or age wall,
// its own rate limit. The caller cannot change that; the operator can (cookies, a proxy with a
// better address, newer media tools), so the log line names the remedy and the answer says who
// can act. The same for yt-dlp and gallery-dl, whose logs say it in their own words.
import { ApiError } from "../http/problem.ts";

const blockedKinds: { pattern: RegExp; kind: string }[] = [
  { pattern: /confirm you.?re not a bot|redirect to challenge page|ChallengeError/i, kind: "a bot check" },
  { pattern: /Sign in to confirm your age|age.?restricted|inappropriate for some users/i, kind: "an age check that needs a signed-in account" },
  { pattern: /rate.?limit|HTTP Error 429|Too Many Requests/i, kind: "its rate limit" },
  {
    pattern: /login required|log ?in required|requires? (a )?log ?in|account authentication is required|redirect to login page|AuthorizationError|AuthenticationError/i,
    kind: "a sign-in",
  },
];

export const blockedRemedy =
  "give yt-dlp and gallery-dl the cookies of a signed-in browser (COOKIES_FILE), send them through a proxy with a better address (OUTBOUND_PROXY), or update them (bash scripts/setup-debian.sh --update-tools)";

/** The cause of an `upstream_blocked`: the tool's words, logged with the remedy. */
export class RefusalCause extends Error {
  constructor(
    readonly tool: "yt-dlp" | "gallery-dl",
    readonly reason: string,
  ) {
    super(`platform refused ${tool} (${reason}); remedy: ${blockedRemedy}`);
  }
}

/** How a platform refused this server, from a tool's log ("a bot check"); null when it did not. */
export function blockedKindOf(log: string): string | null {
  return blockedKinds.find(({ pattern }) => pattern.test(log))?.kind ?? null;
}

/** 502 upstream_blocked when the tool's log says the platform refused this server; else null. */
export function blockedError(log: string, tool: "yt-dlp" | "gallery-dl", reason: string): ApiError | null {
  const kind = blockedKindOf(log);
  if (kind === null) return null;
  return new ApiError("upstream_blocked", `The platform refused this server with ${kind}, not because of your request. The operator of this service can act on it; try again later.`,
    { cause: new RefusalCause(tool, reason) },
  );
}
