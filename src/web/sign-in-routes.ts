// Signing up, in and out, with the limits per client that keep guessing and mass sign-ups slow.
import { z } from "zod";
import { checkNewPassword, hashPassword } from "../auth/password.ts";
import { type Sender, unnamedLocalProxy } from "../http/client-address.ts";
import { ApiError } from "../http/problem.ts";
import { emailTaken } from "../http/store-refusals.ts";
import type { Route } from "../http/router.ts";
import { createAccount, findAccountByEmail } from "../store/accounts.ts";
import { deleteSession } from "../store/sessions.ts";
import { takeSignUp } from "../store/sign-ups.ts";
import { htmlResponse } from "./html.ts";
import * as pages from "./pages.ts";
import { checkPassword, clientOf, waitFor } from "./password-checks.ts";
import { clearedCookie, readSession, SESSION_COOKIE } from "./session.ts";
import { checkedForm, KEYS_PAGE, noticeOf, redirect, type Site, type SiteHandler, type WebDeps } from "./site.ts";

/** The window SIGNUPS_PER_CLIENT counts in. */
export const SIGN_UP_WINDOW_MS = 24 * 60 * 60_000;

const Email = z.email().max(254);

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

function signOut({ db, now, page }: Site): SiteHandler {
  return page(async ({ request }) => {
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
  const checks = { db, now, trustProxy: deps.trustProxy };
  const signInForm = (
    csrf: string,
    view: { email?: string; error?: string; notice?: string },
    init: ResponseInit = {},
  ) => htmlResponse(pages.signInPage({ csrf, signupOpen: deps.signup === "open", ...view }), init);

  const signIn = site.signedOut(async ({ request, url, form, csrf, peer }) => {
    if (request.method === "GET") return signInForm(csrf, { notice: noticeOf(url) });
    const email = form.get("email") ?? "";
    const sender = { request, peer };
    warnOfUnnamedProxy(sender);
    const account = await findAccountByEmail(db, email);
    const password = form.get("password") ?? "";
    const check = await checkPassword(checks, { email, account, password, sender, use: "sign-in" });
    if (check.outcome === "refused") {
      return signInForm(csrf, { email, error: check.message }, { status: 429, headers: check.headers });
    }
    if (!account || check.outcome === "wrong") {
      return signInForm(csrf, { email, error: "Wrong email or password." }, { status: 401 });
    }
    return site.startSession(request, account.id, KEYS_PAGE);
  });

  const signUp = site.signedOut(async ({ request, form, csrf, peer }) => {
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
