// The owner's site: sign up, sign in and out, and the keys page. Every handler answers HTML with
// the security headers; an error thrown below becomes an HTML page in the error sink.
import { z } from "zod";
import { checkNewPassword, hashPassword, verifyPassword } from "../auth/password.ts";
import { clientAddress, clientGroup, clientNetwork, unnamedLocalProxy, type Sender, type TrustedProxies } from "../http/client-address.ts";
import { errorAnswer } from "../http/error-sink.ts";
import { ApiError } from "../http/problem.ts";
import { emailTaken, noSuchKey } from "../http/store-refusals.ts";
import type { Route } from "../http/router.ts";
import type { Logger } from "../log.ts";
import { createAccount, findAccountByEmail } from "../store/accounts.ts";
import { createApiKey, deleteApiKey, keysHeld, listApiKeys, updateApiKey } from "../store/api-keys.ts";
import type { Db } from "../store/db.ts";
import { createSession, deleteSession, type Session } from "../store/sessions.ts";
import { clearSignInAttempts, takeSignInAttempt, type AttemptVerdict } from "../store/sign-in-attempts.ts";
import { takeSignUp } from "../store/sign-ups.ts";
import { assetResponse, assets } from "./assets.ts";
import { checkCsrf, csrfToken } from "./csrf.ts";
import { readForm } from "./form.ts";
import { htmlResponse, securityHeaders } from "./html.ts";
import * as pages from "./pages.ts";
import { clearedCookie, cookie, newSecret, PRE_SESSION_COOKIE, readCookie, readSession, SESSION_COOKIE, sessionCookie } from "./session.ts";

export interface WebDeps {
  db: Db;
  now: () => Date;
  signup: "open" | "closed";
  /** Accounts one client may create in SIGN_UP_WINDOW_MS (SIGNUPS_PER_CLIENT). */
  signupsPerClient: number;
  /** The proxies whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy: TrustedProxies;
  log: Logger;
}

/** `log` is the request's logger, whose lines carry its id, and `peer` the socket's, when the app hands them in. */
export type SiteHandler = (request: Request, log?: Logger, peer?: string) => Promise<Response>;

export const KEYS_PAGE = "/profile/api-keys";
/** Enough for an owner's machines and jobs; more keys would only multiply the free quota. */
export const MAX_KEYS_PER_ACCOUNT = 10;
/**
 * Sign-in attempts in 15 minutes: 5 per client on one account, 30 per client in all, and 100 per
 * account from everywhere, which takes 20 clients (IPv4 addresses or IPv6 /64s) to reach; past it,
 * one attempt per network from a client that has not tried the account (store/sign-in-attempts.ts).
 */
export const SIGN_IN_LIMITS = { perClientAndAccount: 5, perClient: 30, perAccount: 100, windowMs: 15 * 60_000 };
/** The window SIGNUPS_PER_CLIENT counts in. */
export const SIGN_UP_WINDOW_MS = 24 * 60 * 60_000;

const tooManyAttempts: Record<Exclude<AttemptVerdict, { allowed: true }>["limit"], string> = {
  "client and account": "Too many sign-in attempts for this email.",
  client: "Too many sign-in attempts from your address.",
  account: "Too many sign-in attempts for this email, from many addresses.",
};

const notices: Record<string, string> = {
  ended: "Your session has ended. Sign in again.",
  "signed-out": "You are signed out.",
  welcome: "Your account is ready. Create your first key below.",
  passive: "The key is passive now: the API refuses it until you make it usable again.",
  usable: "The key is usable again.",
  deleted: "The key is deleted.",
};
const noticeOf = (url: URL) => notices[url.searchParams.get("notice") ?? ""];

const Email = z.email().max(254);
const CreateKey = z.object({
  name: z.string().trim().min(1, "Give the key a name.").max(100, "A key name has at most 100 characters."),
  expires: z.enum(pages.expiryChoices, "Choose when the key expires."),
});

/** A signed-in request, with its form already checked for CSRF when it is a post. */
interface OwnerRequest {
  request: Request;
  url: URL;
  form: URLSearchParams;
  session: Session;
  token: string;
  owner: pages.Owner;
}

/** How long until `retryAt`, in words for the page and in seconds for Retry-After. */
function waitFor(retryAt: Date, now: Date): { words: string; headers: { "retry-after": string } } {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  const minutes = Math.ceil(seconds / 60);
  const words = minutes < 120 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${Math.ceil(minutes / 60)} hours`;
  return { words, headers: { "retry-after": String(seconds) } };
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location });
  for (const value of cookies) headers.append("set-cookie", value);
  return new Response(null, { status: 303, headers });
}

/** The form of a post, once it has passed the CSRF checks for `secret`; nothing for a GET. */
async function checkedForm(request: Request, secret: string | null): Promise<URLSearchParams> {
  if (request.method !== "POST") return new URLSearchParams();
  const form = await readForm(request);
  await checkCsrf(request, form, secret);
  return form;
}

// Unknown emails are checked against this too, so a wrong email takes as long as a wrong password.
let dummyHash: Promise<string> | undefined;

export function webRoutes(deps: WebDeps): Route<SiteHandler>[] {
  const { db, now } = deps;

  /** Security headers on every answer, and an error as a page rather than JSON. */
  const page =
    (handler: SiteHandler): SiteHandler =>
    async (request, log = deps.log, peer) => {
      let response: Response;
      try {
        response = await handler(request, log, peer);
      } catch (error) {
        response = errorAnswer(error, { as: "page", log });
      }
      for (const [name, value] of Object.entries(securityHeaders)) response.headers.set(name, value);
      return response;
    };

  const signedIn = (handler: (ctx: OwnerRequest) => Promise<Response>): SiteHandler =>
    page(async (request) => {
      const state = await readSession(db, request, now());
      if (state.kind !== "signed-in") {
        if (state.kind === "none") return redirect("/sign-in");
        return redirect("/sign-in?notice=ended", [clearedCookie(request, SESSION_COOKIE)]);
      }
      const form = await checkedForm(request, state.token);
      const owner = { email: state.session.email, csrf: await csrfToken(state.token) };
      return handler({ request, url: new URL(request.url), form, session: state.session, token: state.token, owner });
    });

  /** Sign-in and sign-up: their CSRF secret lives in a cookie of its own until there is a session. */
  const signedOut = (handler: (request: Request, form: URLSearchParams, csrf: string, peer: string | undefined) => Promise<Response>): SiteHandler =>
    page(async (request, _log, peer) => {
      const given = readCookie(request, PRE_SESSION_COOKIE);
      const form = await checkedForm(request, given);
      if (request.method !== "POST" && (await readSession(db, request, now())).kind === "signed-in") return redirect(KEYS_PAGE);
      const secret = given ?? newSecret();
      const cookies = given ? [] : [cookie(request, PRE_SESSION_COOKIE, secret)];
      const response = await handler(request, form, await csrfToken(secret), peer);
      for (const value of cookies) response.headers.append("set-cookie", value);
      return response;
    });

  const startSession = async (request: Request, accountId: number, location: string) => {
    const { token } = await createSession(db, accountId, now());
    return redirect(location, [sessionCookie(request, token), clearedCookie(request, PRE_SESSION_COOKIE)]);
  };

  // Once per process: an operator who put a proxy in front and did not name it learns why every
  // visitor shares one sign-in limit.
  let proxyWarned = false;
  const warnOfUnnamedProxy = (sender: Sender) => {
    const proxy = proxyWarned ? null : unnamedLocalProxy(sender, deps.trustProxy);
    if (proxy === null) return;
    proxyWarned = true;
    deps.log.warn("sign-ins arrive through a proxy that TRUST_PROXY does not name: every client behind it shares one set of sign-in limits; if the proxy is yours, add it to TRUST_PROXY", { proxy });
  };

  const signInForm = (csrf: string, view: { email?: string; error?: string; notice?: string }, init: ResponseInit = {}) =>
    htmlResponse(pages.signInPage({ csrf, signupOpen: deps.signup === "open", ...view }), init);

  /** Who the limits count: the client (IPv4 address, IPv6 /64) and the network around it. */
  const clientOf = (sender: Sender) => {
    const address = clientAddress(sender, deps.trustProxy);
    return { client: clientGroup(address), network: clientNetwork(address) };
  };

  const signIn = signedOut(async (request, form, csrf, peer) => {
    if (request.method === "GET") return signInForm(csrf, { notice: noticeOf(new URL(request.url)) });
    const email = form.get("email") ?? "";
    const password = form.get("password") ?? "";
    warnOfUnnamedProxy({ request, peer });
    const attempt = { email, ...clientOf({ request, peer }) };
    const verdict = await takeSignInAttempt(db, attempt, now(), SIGN_IN_LIMITS);
    if (!verdict.allowed) {
      const wait = waitFor(verdict.retryAt, now());
      return signInForm(csrf, { email, error: `${tooManyAttempts[verdict.limit]} Wait ${wait.words} and try again.` }, { status: 429, headers: wait.headers });
    }
    const account = await findAccountByEmail(db, email);
    const matches = await verifyPassword(password, account?.passwordHash ?? (await (dummyHash ??= hashPassword(newSecret()))));
    if (!account || !matches) return signInForm(csrf, { email, error: "Wrong email or password." }, { status: 401 });
    await clearSignInAttempts(db, attempt);
    return startSession(request, account.id, KEYS_PAGE);
  });

  const signUp = signedOut(async (request, form, csrf, peer) => {
    if (deps.signup === "closed") return htmlResponse(pages.signUpClosedPage(), { status: 403 });
    if (request.method === "GET") return htmlResponse(pages.signUpPage({ csrf }));
    const email = (form.get("email") ?? "").trim();
    const password = form.get("password") ?? "";
    const refuse = (error: string, init: ResponseInit = { status: 400 }) => htmlResponse(pages.signUpPage({ csrf, email, error }), init);
    if (!Email.safeParse(email).success) return refuse("Enter an email address, such as you@example.com.");
    if (password !== form.get("repeat")) return refuse("The two passwords differ; type the same password twice.");
    try {
      checkNewPassword(password);
      // Counted once the form is right, before the costly hash: a typo is not a sign-up.
      const verdict = await takeSignUp(db, clientOf({ request, peer }).client, now(), { perClient: deps.signupsPerClient, windowMs: SIGN_UP_WINDOW_MS });
      if (!verdict.allowed) {
        const wait = waitFor(verdict.retryAt, now());
        return refuse(`Too many accounts were made from your address today. Wait ${wait.words} and try again.`, { status: 429, headers: wait.headers });
      }
      const account = await createAccount(db, email, await hashPassword(password));
      if (account === null) throw emailTaken();
      return startSession(request, account.id, `${KEYS_PAGE}?notice=welcome`);
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return refuse(`${error.message}${error.code === "email_taken" ? " Sign in instead." : ""}`, { status: error.status });
      throw error;
    }
  });

  const signOut = page(async (request) => {
    const state = await readSession(db, request, now());
    if (state.kind === "signed-in") {
      await checkedForm(request, state.token);
      await deleteSession(db, state.token);
    }
    return redirect("/sign-in?notice=signed-out", [clearedCookie(request, SESSION_COOKIE)]);
  });

  const renderKeys = (ctx: OwnerRequest, view: { notice?: string; error?: string }, status = 200) =>
    listApiKeys(db, { now: now(), accountId: ctx.session.accountId }).then((keys) =>
      htmlResponse(pages.keysPage({ owner: ctx.owner, keys, maxKeys: MAX_KEYS_PER_ACCOUNT, ...view }), { status }),
    );

  const showKeys = signedIn((ctx) => renderKeys(ctx, { notice: noticeOf(ctx.url) }));

  const createKey = signedIn(async (ctx) => {
    const input = CreateKey.safeParse(Object.fromEntries(ctx.form));
    if (!input.success) return renderKeys(ctx, { error: input.error.issues[0]!.message }, 400);
    if ((await keysHeld(db, ctx.session.accountId, now())) >= MAX_KEYS_PER_ACCOUNT) {
      return renderKeys(
        ctx,
        { error: `Your account holds ${MAX_KEYS_PER_ACCOUNT} keys, the most it may; delete one first. A deleted key keeps its place until its requests of the last 24 hours have left that window.` },
        409,
      );
    }
    const { key, plain } = await createApiKey(db, {
      accountId: ctx.session.accountId,
      name: input.data.name,
      tier: "FREE",
      expiresInDays: input.data.expires === "never" ? null : Number(input.data.expires),
      now: now(),
    });
    return htmlResponse(pages.keyCreatedPage({ owner: ctx.owner, key, plain }), { status: 201 });
  });

  const setCondition = signedIn(async (ctx) => {
    const passive = ctx.form.get("passive") === "true";
    const id = ctx.form.get("id") ?? "";
    if (!(await updateApiKey(db, id, { passive }, ctx.session.accountId))) throw noSuchKey(id);
    return redirect(`${KEYS_PAGE}?notice=${passive ? "passive" : "usable"}`);
  });

  const confirmDelete = signedIn(async (ctx) => {
    const id = ctx.url.searchParams.get("id") ?? "";
    const [key] = id ? await listApiKeys(db, { now: now(), accountId: ctx.session.accountId, id }) : [];
    if (!key) throw new ApiError("key_not_found", "You have no such key; it may be deleted already.");
    return htmlResponse(pages.confirmDeletePage({ owner: ctx.owner, key }));
  });

  const deleteKey = signedIn(async (ctx) => {
    const id = ctx.form.get("id") ?? "";
    if (!(await deleteApiKey(db, id, now(), ctx.session.accountId))) throw noSuchKey(id);
    return redirect(`${KEYS_PAGE}?notice=deleted`);
  });

  return [
    { method: "GET", path: "/", handler: page(async () => redirect(KEYS_PAGE)) },
    { method: "GET", path: "/sign-in", handler: signIn },
    { method: "POST", path: "/sign-in", handler: signIn },
    { method: "GET", path: "/sign-up", handler: signUp },
    { method: "POST", path: "/sign-up", handler: signUp },
    { method: "POST", path: "/sign-out", handler: signOut },
    { method: "GET", path: KEYS_PAGE, handler: showKeys },
    { method: "POST", path: KEYS_PAGE, handler: createKey },
    { method: "POST", path: `${KEYS_PAGE}/condition`, handler: setCondition },
    { method: "GET", path: `${KEYS_PAGE}/delete`, handler: confirmDelete },
    { method: "POST", path: `${KEYS_PAGE}/delete`, handler: deleteKey },
    ...Object.keys(assets).map((path) => ({ method: "GET" as const, path, handler: page(async () => assetResponse(path)) })),
  ];
}
