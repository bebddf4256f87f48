// The owner's account: change the password (the other sessions end), or delete the account with
// its keys. Both ask for the current password, so an unattended signed-in browser cannot; that
// check counts as a sign-in attempt (password-checks.ts), so a session cannot guess it faster.
import { checkNewPassword, hashPassword } from "../auth/password.ts";
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { deleteAccount, findAccountByEmail, setPasswordHash } from "../store/accounts.ts";
import { endSessions } from "../store/sessions.ts";
import { htmlResponse } from "./html.ts";
import * as pages from "./pages.ts";
import { clearedCookie, SESSION_COOKIE } from "./session.ts";
import { checkPassword, type PasswordCheck } from "./password-checks.ts";
import { KEYS_PAGE, type OwnerRequest, redirect, type Site, type SiteHandler } from "./site.ts";

export const ACCOUNT_PAGE = "/profile/account";

export function accountRoutes(site: Site): Route<SiteHandler>[] {
  const { db, now, deps } = site;
  const checks = { db, now, trustProxy: deps.trustProxy };

  type View = { passwordError?: string; deleteError?: string };
  const render = (ctx: OwnerRequest, view: View = {}, init: ResponseInit = {}) =>
    htmlResponse(pages.accountPage({ owner: ctx.caller.owner, ...view }), init);

  /** The form's current password checked against the session's account, under the sign-in limits. */
  const checkCurrent = async (ctx: OwnerRequest): Promise<PasswordCheck> =>
    checkPassword(checks, {
      email: ctx.caller.session.email,
      account: await findAccountByEmail(db, ctx.caller.session.email),
      password: ctx.form.get("current") ?? "",
      sender: ctx,
      use: "account",
    });

  /** The page again with what was wrong with the current password, or null when it is right. */
  const refusedCurrent = (ctx: OwnerRequest, check: PasswordCheck, wrong: View, field: keyof View) => {
    if (check.outcome === "right") return null;
    if (check.outcome === "wrong") return render(ctx, wrong, { status: 403 });
    return render(ctx, { [field]: check.message }, { status: 429, headers: check.headers });
  };

  const changePassword = site.signedIn(async (ctx) => {
    const password = ctx.form.get("password") ?? "";
    const wrong = { passwordError: "The current password is wrong." };
    const refused = refusedCurrent(ctx, await checkCurrent(ctx), wrong, "passwordError");
    if (refused) return refused;
    if (password !== ctx.form.get("repeat")) {
      return render(ctx, { passwordError: "The two new passwords differ; type the same password twice." }, {
        status: 400,
      });
    }
    try {
      checkNewPassword(password);
    } catch (error) {
      if (error instanceof ApiError) return render(ctx, { passwordError: error.message }, { status: error.status });
      throw error;
    }
    await setPasswordHash(db, ctx.caller.session.email, await hashPassword(password));
    await endSessions(db, ctx.caller.session.accountId, ctx.caller.token);
    return redirect(`${KEYS_PAGE}?notice=password-changed`);
  });

  const removeAccount = site.signedIn(async (ctx) => {
    const wrong = { deleteError: "The password is wrong; the account is kept." };
    const refused = refusedCurrent(ctx, await checkCurrent(ctx), wrong, "deleteError");
    if (refused) return refused;
    await deleteAccount(db, ctx.caller.session.accountId);
    return redirect("/sign-in?notice=account-deleted", [clearedCookie(ctx.request, SESSION_COOKIE)]);
  });

  return [
    { method: "GET", path: ACCOUNT_PAGE, handler: site.signedIn(async (ctx) => render(ctx)) },
    { method: "POST", path: `${ACCOUNT_PAGE}/password`, handler: changePassword },
    { method: "POST", path: `${ACCOUNT_PAGE}/delete`, handler: removeAccount },
  ];
}
