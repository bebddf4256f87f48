// What a failed reference post says about a platform, and what the operator can do about it.
// It reads the errors users' requests get (src/platforms/ytdlp/errors.ts, the egress gate's and
// X's), so a check fails the way a user's `post` fails, only explained further. Pure.
import { ApiError } from "../http/problem.ts";
import { causeChain, connectFailureOf } from "../util/connect-failure.ts";
import { blockedRemedy, RefusalCause } from "../platforms/blocked.ts";

export type CheckStatus = "ok" | "blocked" | "broken" | "unreachable" | "cookies_expired";

export interface Verdict {
  status: CheckStatus;
  /** What happened, for the operator (a tool's own words included). */
  detail: string;
  /** What the operator can do; null when nothing is wrong. */
  remedy: string | null;
}

export interface FailureContext {
  /** The extractor that read the post, with its version and age: "yt-dlp 2026.10.26 (30 days old)". */
  extractor: string;
  /** How to get a newer one. */
  update: string;
  /** What expired of the operator's sign-in for this platform (session-cookies.ts); null when nothing can be told. */
  expiredSession: string | null;
}

const networkRemedy =
  "check this server's DNS and outbound connections (firewall, OUTBOUND_PROXY); if they work, the platform itself may be down";
const cookiesRemedy =
  "export the cookies of a browser signed in to the platform again into COOKIES_FILE (it is read anew for every request, no restart)";

/** What the tool or the network said (the causes' messages), rather than the answer users get. */
function reasonOf(error: unknown): string {
  const messages = causeChain(error).map((each) => (each instanceof Error ? each.message : String(each)));
  return messages.length > 1 ? messages.slice(1).join(": ") : (messages[0] ?? String(error));
}

export function classifyFailure(error: unknown, context: FailureContext): Verdict {
  const reason = reasonOf(error);
  const code = error instanceof ApiError ? error.code : null;
  if (code === "upstream_blocked") {
    const refusal = error instanceof Error && error.cause instanceof RefusalCause ? error.cause : null;
    const said = refusal?.reason ?? reason;
    const kind = refusal?.kind ?? "a refusal";
    if (context.expiredSession !== null) {
      return {
        status: "cookies_expired",
        detail: `${context.expiredSession}; the platform answered with ${kind} (${said})`,
        remedy: cookiesRemedy,
      };
    }
    return {
      status: "blocked",
      detail: `the platform refused this server with ${kind} (${said})`,
      remedy: blockedRemedy,
    };
  }
  if (code === "host_not_allowed") {
    return {
      status: "unreachable",
      detail: error instanceof Error ? error.message : reason,
      remedy:
        "the reference post leads to an address this server may not fetch; choose another post (PLATFORM_CHECK_POSTS)",
    };
  }
  // The egress gate's record, yt-dlp's or the HTTP client's words: no connection could be made.
  const failure = connectFailureOf(error);
  if (failure !== null || code === "upstream_timeout") {
    return {
      status: "unreachable",
      detail: failure === null || reason.includes(failure) ? reason : `${failure}: ${reason}`,
      remedy: networkRemedy,
    };
  }
  if (code === "tool_missing") {
    return {
      status: "broken",
      detail: error instanceof Error ? error.message : reason,
      remedy: "install the media tool or point its setting (YTDLP_PATH) at it",
    };
  }
  const gone = code === "not_found" || code === "post_unavailable"
    ? "; if the post no longer opens in a browser, choose another (PLATFORM_CHECK_POSTS)"
    : "";
  return {
    status: "broken",
    detail: `${context.extractor} could not read the reference post: ${reason}`,
    remedy: `platforms change and their extractors follow: ${context.update}${gone}`,
  };
}
