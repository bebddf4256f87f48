// How a media tool reaches a platform, the same for yt-dlp and gallery-dl: through a fresh egress
// gate session (its proxy URL), with a private copy of the cookies of the page's platform (an
// account of its jar, in turn), counted while it runs; a refusal by the gate or by the platform is
// told the way every tool's is, and the account the platform refused is set aside.
import { ApiError } from "../../http/problem.ts";
import { type EgressGate, gateVerdict } from "../../net/egress-gate.ts";
import { RefusalCause } from "../blocked.ts";
import type { CookieSource, TakenCookies } from "../cookie-jars.ts";
import { type Files, withCookieCopy } from "./ytdlp/cookie-file.ts";

export interface ToolAccess {
  /** For the private copies of the cookie file. */
  files: Files;
  /** The egress gate every run fetches through (tests of the mapping may leave it out). */
  gate?: EgressGate;
  /** The cookie jars (COOKIES_DIR, COOKIES_FILE, or the account's own); every networked run gets a private copy. */
  cookies?: CookieSource;
  /** Told when a run starts; the returned function when it has ended (metrics). */
  onChild?: () => () => void;
  /** Told when a platform refused this server (502 upstream_blocked), for metrics and the platform check. */
  onBlocked?: (page: URL, error: ApiError) => void;
}

/** What a networked run is given: the gate's proxy URL and the cookie copy's path. */
export interface RunAccess {
  proxy?: string;
  cookiesFile?: string;
}

/**
 * Runs `use` for `page` with the access a tool needs; `networked: false` (a load of a kept
 * description) gets neither gate session nor cookies.
 */
export async function withToolAccess<T>(
  access: ToolAccess,
  page: URL,
  networked: boolean,
  use: (run: RunAccess) => Promise<T>,
): Promise<T> {
  const session = networked ? await access.gate?.session("extraction") : undefined;
  const done = access.onChild?.();
  let taken: TakenCookies | null = null;
  try {
    taken = networked ? ((await access.cookies?.take(page)) ?? null) : null;
    const result = await withCookieCopy(
      access.files,
      taken?.content ?? null,
      (cookiesFile) => use({ proxy: session?.proxyUrl, cookiesFile }),
    );
    // A tool that made do with a page cut for its budget read a part of it: no answer to give.
    const overBudget = session?.overBudget();
    if (overBudget) throw overBudget;
    return result;
  } catch (error) {
    // The page led the tool to an address it may not fetch, or sent more than it may read: say
    // that, not how the tool failed.
    const verdict = gateVerdict(session, error);
    if (verdict instanceof ApiError && verdict.code === "upstream_blocked") {
      // The account's reputation is what the platform refused: the next run takes another.
      if (verdict.cause instanceof RefusalCause) taken?.refused(verdict.cause.kind);
      access.onBlocked?.(page, verdict);
    }
    throw verdict;
  } finally {
    done?.();
    session?.close();
  }
}
