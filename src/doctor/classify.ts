// What a failed reference post says about a platform, and what the operator can do about it.
// It reads the errors users' requests get (src/platforms/tools/ytdlp/errors.ts, the egress gate's and
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
  /** Which of the remedies for a platform's walls the operator set for this one; absent for a site of no platform. */
  remedies?: PlatformRemedies;
}

/** The remedies set for a platform (docs/operating.md, "When platforms push back"). */
export interface PlatformRemedies {
  platform: string;
  /** Its jar (its own accounts, else COOKIES_FILE): how many accounts, and those set aside ("alice until ... (why)"); null for none. */
  jar: { accounts: number; setAside: string[] } | null;
  /**
   * Its proxies (its own, else OUTBOUND_PROXY), those set aside ("10.0.0.5:1080 until ... (why)"), and what was last
   * heard of each ("10.0.0.5:1080 answered at ...", "... failed at ... (connection refused)").
   */
  proxies: { count: number; setAside: string[]; heard?: string[] } | null;
  /** Whether a PO token server is set (PO_TOKEN_URL); null for a platform that takes no tokens. */
  tokenServer: boolean | null;
  /** What the token server said when the check asked it: null when it answered, else why not. */
  tokenServerFault?: string | null;
}

/** "missing: a cookie jar (...); a proxy (...)": the blocked row's remedy names what is not set, or what is all set aside. */
export function remediesText(remedies: PlatformRemedies): { remedy: string; setAside: string } {
  const { platform, jar, proxies, tokenServer } = remedies;
  const missing: string[] = [];
  if (jar === null) {
    missing.push(`a cookie jar (COOKIES_DIR/${platform.toLowerCase()}/*.txt, or COOKIES_FILE_${platform})`);
  } else if (jar.setAside.length === jar.accounts) {
    missing.push(`an account its platform has not refused (all ${jar.accounts} are set aside)`);
  }
  if (proxies === null) missing.push(`a proxy with a better address (OUTBOUND_PROXY_${platform}, or OUTBOUND_PROXY)`);
  if (tokenServer === false) missing.push("a PO token server (PO_TOKEN_URL)");
  const fault = remedies.tokenServerFault ?? null;
  if (tokenServer === true && fault !== null) missing.push(`a PO token server that answers (PO_TOKEN_URL ${fault})`);
  const setAside = [
    ...(jar?.setAside ?? []).map((each) => `account ${each}`),
    ...(proxies?.setAside ?? []).map((each) => `proxy ${each}`),
  ];
  const heard = [
    ...(tokenServer === true ? [`token server ${fault ?? "answered"}`] : []),
    ...(proxies?.heard ?? []).map((each) => `proxy ${each}`),
  ];
  return {
    remedy: missing.length > 0
      ? `missing: ${missing.join("; ")}; or update the tools (bash scripts/setup-debian.sh --update-tools)`
      : `a jar, a proxy${
        tokenServer ? " and a token server" : ""
      } are set: add accounts or proxies, or update the tools (bash scripts/setup-debian.sh --update-tools)`,
    setAside: (setAside.length > 0 ? `; set aside: ${setAside.join(", ")}` : "") +
      (heard.length > 0 ? `; remedies heard: ${heard.join(", ")}` : ""),
  };
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
    const named = context.remedies === undefined ? null : remediesText(context.remedies);
    return {
      status: "blocked",
      detail: `the platform refused this server with ${kind} (${said})${named?.setAside ?? ""}`,
      remedy: named?.remedy ?? blockedRemedy,
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
