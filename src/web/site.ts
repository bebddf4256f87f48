// What every handler of the owner's site shares: its dependencies, the wrapper that turns an
// ApiError into a page and adds the security headers, and the wrappers for signed-in and
// signed-out pages with their CSRF checks.
import type { Logger } from "../log.ts";
import type { TrustedProxies } from "../http/client-address.ts";
import type { RequestContext } from "../http/request-context.ts";
import type { Db } from "../store/db.ts";
import { createSession, type Session } from "../store/sessions.ts";
import { checkCsrf, csrfToken } from "./csrf.ts";
import { readForm } from "./form.ts";
import { securityHeaders } from "./html.ts";
import type * as pages from "./pages.ts";
import {
  clearedCookie,
  cookie,
  newSecret,
  PRE_SESSION_COOKIE,
  readCookie,
  readSession,
  SESSION_COOKIE,
  sessionCookie,
} from "./session.ts";

export interface WebDeps {
  db: Db;
  now: () => Date;
  signup: "open" | "closed";
  /** Accounts one client may create in SIGN_UP_WINDOW_MS (SIGNUPS_PER_CLIENT). */
  signupsPerClient: number;
  /** The proxies whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: TrustedProxies;
  /** PUBLIC_URL, for the example calls the pages show; unset, each request's own address. */
  publicUrl?: string;
  /** The service's own API, which the paste page calls through a signed link as the owner's key, from the owner's peer. */
  api: (request: Request, peer: string | undefined) => Promise<Response>;
  log: Logger;
  /** The app's error sink, answering as one of the owner's pages (the sink lives above the site). */
  pageError: (error: unknown, log: Logger) => Response;
}

/** A page's handler: it is handed the request's context before anyone is known, as the app's site path made it. */
export type SiteHandler = (ctx: RequestContext) => Promise<Response>;

export const KEYS_PAGE = "/profile/api-keys";
/** The jobs page (src/jobs), where the paste page's job form posts. */
export const JOBS_PAGE = "/profile/jobs";
/** The watches page (src/watches). */
export const WATCHES_PAGE = "/profile/watches";

/** Where one job is shown, and one watch: what a webhook's attempt links to (src/webhooks). */
export const jobLink = (id: string) => `${JOBS_PAGE}?id=${encodeURIComponent(id)}`;
export const watchLink = (id: string) => `${WATCHES_PAGE}#watch-${encodeURIComponent(id)}`;

/** Who is signed in: their session, its token (the CSRF secret), and the owner as the pages show them. */
export interface OwnerCaller {
  session: Session;
  token: string;
  owner: pages.Owner;
}

/** A signed-in request, with its form already checked for CSRF when it is a post. */
export interface OwnerRequest extends RequestContext<OwnerCaller> {
  form: URLSearchParams;
}

/** A request to sign in or up, with its form checked for CSRF against the pre-session cookie, and that secret's token. */
export interface SignedOutRequest extends RequestContext {
  form: URLSearchParams;
  csrf: string;
}

export function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location });
  for (const value of cookies) headers.append("set-cookie", value);
  return new Response(null, { status: 303, headers });
}

/** The form of a post, once it has passed the CSRF checks for `secret`; nothing for a GET. */
export async function checkedForm(
  request: Request,
  secret: string | null,
  maxBytes?: number,
): Promise<URLSearchParams> {
  if (request.method !== "POST") return new URLSearchParams();
  const form = await readForm(request, maxBytes);
  await checkCsrf(request, form, secret);
  return form;
}

export type Site = ReturnType<typeof siteOf>;

export function siteOf(deps: WebDeps) {
  const { db, now } = deps;

  /** Security headers on every answer (a page may set its own policy), and an error as a page in the error sink rather than JSON. */
  const page = (handler: SiteHandler): SiteHandler => async (ctx) => {
    let response: Response;
    try {
      response = await handler(ctx);
    } catch (error) {
      response = deps.pageError(error, ctx.log);
    }
    for (const [name, value] of Object.entries(securityHeaders)) {
      if (!response.headers.has(name)) response.headers.set(name, value);
    }
    return response;
  };

  /** `maxFormBytes` for a page whose form carries a file's text (readForm's default otherwise). */
  const signedIn = (handler: (ctx: OwnerRequest) => Promise<Response>, maxFormBytes?: number): SiteHandler =>
    page(async (ctx) => {
      const { request } = ctx;
      const state = await readSession(db, request, now());
      if (state.kind !== "signed-in") {
        if (state.kind === "none") return redirect("/sign-in");
        return redirect("/sign-in?notice=ended", [clearedCookie(request, SESSION_COOKIE)]);
      }
      const form = await checkedForm(request, state.token, maxFormBytes);
      const owner = { email: state.session.email, csrf: await csrfToken(state.token) };
      return handler({ ...ctx, form, caller: { session: state.session, token: state.token, owner } });
    });

  /** Sign-in and sign-up: their CSRF secret lives in a cookie of its own until there is a session. */
  const signedOut = (handler: (ctx: SignedOutRequest) => Promise<Response>): SiteHandler =>
    page(async (ctx) => {
      const { request } = ctx;
      const given = readCookie(request, PRE_SESSION_COOKIE);
      const form = await checkedForm(request, given);
      if (request.method !== "POST" && (await readSession(db, request, now())).kind === "signed-in") {
        return redirect(KEYS_PAGE);
      }
      const secret = given ?? newSecret();
      const cookies = given ? [] : [cookie(request, PRE_SESSION_COOKIE, secret)];
      const response = await handler({ ...ctx, form, csrf: await csrfToken(secret) });
      for (const value of cookies) response.headers.append("set-cookie", value);
      return response;
    });

  const startSession = async (request: Request, accountId: number, location: string) => {
    const { token } = await createSession(db, accountId, now());
    return redirect(location, [sessionCookie(request, token), clearedCookie(request, PRE_SESSION_COOKIE)]);
  };

  return { deps, db, now, page, signedIn, signedOut, startSession };
}

/** The messages a redirect names in `?notice=`. */
const notices: Record<string, string> = {
  ended: "Your session has ended. Sign in again.",
  "signed-out": "You are signed out.",
  welcome: "Your account is ready. Create your first key below.",
  passive: "The key is passive now: the API refuses it until you make it usable again.",
  usable: "The key is usable again.",
  deleted: "The key is deleted.",
  "shown-once":
    "A new key is shown only once, and it was. It is in your list below; if you did not copy it, delete it and create another.",
  "password-changed": "Your password is changed. Your other sessions have ended.",
  "account-deleted": "Your account and its keys are deleted.",
};

export const noticeOf = (url: URL) => notices[url.searchParams.get("notice") ?? ""];
