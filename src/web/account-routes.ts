// The owner's account: change the password (the other sessions end), or delete the account with
// its keys. Both ask for the current password, so an unattended signed-in browser cannot.
import { checkNewPassword, hashPassword } from "../auth/password.ts";
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { deleteAccount, findAccountByEmail, setPasswordHash } from "../store/accounts.ts";
import { endSessions } from "../store/sessions.ts";
import { htmlResponse } from "./html.ts";
import * as pages from "./pages.ts";
import { clearedCookie, SESSION_COOKIE } from "./session.ts";
import { passwordMatches } from "./sign-in-routes.ts";
import { KEYS_PAGE, type OwnerRequest, redirect, type Site, type SiteHandler } from "./site.ts";

export const ACCOUNT_PAGE = "/profile/account";

export function accountRoutes(site: Site): Route<SiteHandler>[] {
  const { db } = site;

  const render = (ctx: OwnerRequest, view: { passwordError?: string; deleteError?: string } = {}, status = 200) =>
    htmlResponse(pages.accountPage({ owner: ctx.owner, ...view }), { status });

  /** Whether the form's current password is the account's. */
  const currentPasswordOk = async (ctx: OwnerRequest) =>
    passwordMatches(await findAccountByEmail(db, ctx.session.email), ctx.form.get("current") ?? "");

  const changePassword = site.signedIn(async (ctx) => {
    const password = ctx.form.get("password") ?? "";
    if (!(await currentPasswordOk(ctx))) return render(ctx, { passwordError: "The current password is wrong." }, 403);
    if (password !== ctx.form.get("repeat")) {
      return render(ctx, { passwordError: "The two new passwords differ; type the same password twice." }, 400);
    }
    try {
      checkNewPassword(password);
    } catch (error) {
      if (error instanceof ApiError) return render(ctx, { passwordError: error.message }, error.status);
      throw error;
    }
    await setPasswordHash(db, ctx.session.email, await hashPassword(password));
    await endSessions(db, ctx.session.accountId, ctx.token);
    return redirect(`${KEYS_PAGE}?notice=password-changed`);
  });

  const removeAccount = site.signedIn(async (ctx) => {
    if (!(await currentPasswordOk(ctx))) {
      return render(ctx, { deleteError: "The password is wrong; the account is kept." }, 403);
    }
    await deleteAccount(db, ctx.session.accountId);
    return redirect("/sign-in?notice=account-deleted", [clearedCookie(ctx.request, SESSION_COOKIE)]);
  });

  return [
    { method: "GET", path: ACCOUNT_PAGE, handler: site.signedIn(async (ctx) => render(ctx)) },
    { method: "POST", path: `${ACCOUNT_PAGE}/password`, handler: changePassword },
    { method: "POST", path: `${ACCOUNT_PAGE}/delete`, handler: removeAccount },
  ];
}
