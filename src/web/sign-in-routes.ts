// Signing up, in and out, with the limits per client that keep guessing and mass sign-ups slow.
import { z } from "zod";
import { checkNewPassword, hashPassword, verifyPassword } from "../auth/password.ts";
import {
  clientAddress,
  clientGroup,
  clientNetwork,
  type Sender,
  type TrustedProxies,
  unnamedLocalProxy,
} from "../http/client-address.ts";
import { ApiError } from "../http/problem.ts";
import { emailTaken } from "../http/store-refusals.ts";
import type { Route } from "../http/router.ts";
import { createAccount, findAccountByEmail } from "../store/accounts.ts";
import { deleteSession } from "../store/sessions.ts";
import { type AttemptVerdict, clearSignInAttempts, takeSignInAttempt } from "../store/sign-in-attempts.ts";
import { takeSignUp } from "../store/sign-ups.ts";
import { htmlResponse } from "./html.ts";
import * as pages from "./pages.ts";
import { clearedCookie, newSecret, readSession, SESSION_COOKIE } from "./session.ts";
import { checkedForm, KEYS_PAGE, noticeOf, redirect, type Site, type SiteHandler, type WebDeps } from "./site.ts";

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

const Email = z.email().max(254);

/** How long until `retryAt`, in words for the page and in seconds for Retry-After. */
function waitFor(retryAt: Date, now: Date): { words: string; headers: { "retry-after": string } } {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  const minutes = Math.ceil(seconds / 60);
  const words = minutes < 120 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${Math.ceil(minutes / 60)} hours`;
  return { words, headers: { "retry-after": String(seconds) } };
}

// Unknown emails are checked against this too, so a wrong email takes as long as a wrong password.
let dummyHash: Promise<string> | undefined;

/** Whether `password` is the account's, in the same time whether or not there is such an account. */
export async function passwordMatches(account: { passwordHash: string } | null, password: string): Promise<boolean> {
  const matches = await verifyPassword(
    password,
    account?.passwordHash ?? (await (dummyHash ??= hashPassword(newSecret()))),
  );
  return account !== null && matches;
}

/**
 * Once per process: an operator who put a proxy in front and did not name it learns why every
 * visitor shares one sign-in limit.
 */
function unnamedProxyWarning(deps: Pick<WebDeps, "trustProxy" | "log">): (sender: Sender) => void {
  let warned = false;
  return (sender) => {
    const proxy = warned ? null : unnamedLocalProxy(sender, deps.trustProxy);
    if (proxy === null) return;
    warned = true;
    deps.log.warn(
      "sign-ins arrive through a proxy that TRUST_PROXY does not name: every client behind it shares one set of sign-in limits; if the proxy is yours, add it to TRUST_PROXY",
      { proxy },
    );
  };
}

/** Who the limits count: the client (IPv4 address, IPv6 /64) and the network around it. */
function clientOf(sender: Sender, trustProxy: TrustedProxies) {
  const address = clientAddress(sender, trustProxy);
  return { client: clientGroup(address), network: clientNetwork(address) };
}

function signOut({ db, now, page }: Site): SiteHandler {
  return page(async (request) => {
    const state = await readSession(db, request, now());
    if (state.kind === "signed-in") {
      await checkedForm(request, state.token);
      await deleteSession(db, state.token);
    }
    return redirect("/sign-in?notice=signed-out", [clearedCookie(request, SESSION_COOKIE)]);
  });
}

export function signInRoutes(site: Site): Route<SiteHandler>[] {
  const { db, now, deps } = site;
  const warnOfUnnamedProxy = unnamedProxyWarning(deps);
  const signInForm = (
    csrf: string,
    view: { email?: string; error?: string; notice?: string },
    init: ResponseInit = {},
  ) => htmlResponse(pages.signInPage({ csrf, signupOpen: deps.signup === "open", ...view }), init);

  const signIn = site.signedOut(async (request, form, csrf, peer) => {
    if (request.method === "GET") return signInForm(csrf, { notice: noticeOf(new URL(request.url)) });
    const email = form.get("email") ?? "";
    warnOfUnnamedProxy({ request, peer });
    const attempt = { email, ...clientOf({ request, peer }, deps.trustProxy) };
    const verdict = await takeSignInAttempt(db, attempt, now(), SIGN_IN_LIMITS);
    if (!verdict.allowed) {
      const wait = waitFor(verdict.retryAt, now());
      return signInForm(csrf, { email, error: `${tooManyAttempts[verdict.limit]} Wait ${wait.words} and try again.` }, {
        status: 429,
        headers: wait.headers,
      });
    }
    const account = await findAccountByEmail(db, email);
    const matches = await passwordMatches(account, form.get("password") ?? "");
    if (!account || !matches) return signInForm(csrf, { email, error: "Wrong email or password." }, { status: 401 });
    await clearSignInAttempts(db, attempt);
    return site.startSession(request, account.id, KEYS_PAGE);
  });

  const signUp = site.signedOut(async (request, form, csrf, peer) => {
    if (deps.signup === "closed") return htmlResponse(pages.signUpClosedPage(), { status: 403 });
    if (request.method === "GET") return htmlResponse(pages.signUpPage({ csrf }));
    const email = (form.get("email") ?? "").trim();
    const password = form.get("password") ?? "";
    const refuse = (error: string, init: ResponseInit = { status: 400 }) =>
      htmlResponse(pages.signUpPage({ csrf, email, error }), init);
    if (!Email.safeParse(email).success) return refuse("Enter an email address, such as you@example.com.");
    if (password !== form.get("repeat")) return refuse("The two passwords differ; type the same password twice.");
    try {
      checkNewPassword(password);
      // Counted once the form is right, before the costly hash: a typo is not a sign-up.
      const verdict = await takeSignUp(db, clientOf({ request, peer }, deps.trustProxy).client, now(), {
        perClient: deps.signupsPerClient,
        windowMs: SIGN_UP_WINDOW_MS,
      });
      if (!verdict.allowed) {
        const wait = waitFor(verdict.retryAt, now());
        return refuse(`Too many accounts were made from your address today. Wait ${wait.words} and try again.`, {
          status: 429,
          headers: wait.headers,
        });
      }
      const account = await createAccount(db, email, await hashPassword(password));
      if (account === null) throw emailTaken();
      return site.startSession(request, account.id, `${KEYS_PAGE}?notice=welcome`);
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        return refuse(`${error.message}${error.code === "email_taken" ? " Sign in instead." : ""}`, {
          status: error.status,
        });
      }
      throw error;
    }
  });

  return [
    { method: "GET", path: "/sign-in", handler: signIn },
    { method: "POST", path: "/sign-in", handler: signIn },
    { method: "GET", path: "/sign-up", handler: signUp },
    { method: "POST", path: "/sign-up", handler: signUp },
    { method: "POST", path: "/sign-out", handler: signOut(site) },
  ];
}
