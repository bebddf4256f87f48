// The keys page: list, create, turn passive or usable, delete. A new key is created by a post
// that redirects to the page showing it (post, redirect, get): the key rides in a cookie of that
// one path for a few minutes and is cleared as it is shown, so a reload shows it no more and
// makes no second key.
import { z } from "zod";
import { displayPrefix } from "../auth/api-key.ts";
import { linkBase } from "../auth/link-caller.ts";
import { ApiError } from "../http/problem.ts";
import { noSuchKey } from "../http/store-refusals.ts";
import type { Route } from "../http/router.ts";
import { createApiKey, deleteApiKey, keysHeld, listApiKeys, updateApiKey } from "../store/api-keys.ts";
import type { Queryable } from "../store/db.ts";
import { htmlResponse } from "./html.ts";
import * as pages from "./pages.ts";
import { cookie, readCookie } from "./session.ts";
import { KEYS_PAGE, noticeOf, type OwnerRequest, redirect, type Site, type SiteHandler } from "./site.ts";

/** Enough for an owner's machines and jobs; more keys would only multiply the free quota. */
export const MAX_KEYS_PER_ACCOUNT = 10;

const NEW_KEY_PAGE = `${KEYS_PAGE}/new`;
const NEW_KEY_COOKIE = "newkey";
const NEW_KEY_COOKIE_MS = 5 * 60_000;

const CreateKey = z.object({
  name: z.string().trim().min(1, "Give the key a name.").max(100, "A key name has at most 100 characters."),
  expires: z.enum(pages.expiryChoices, "Choose when the key expires."),
  shape: z.enum(["xva", "uuid"], "Choose the key's shape.").default("xva"),
});

const keysFullMessage = `Your account holds ${MAX_KEYS_PER_ACCOUNT} keys, the most it may; delete one first. ` +
  "A deleted key keeps its place until its requests of the last 24 hours have left that window.";

export function keyRoutes(site: Site): Route<SiteHandler>[] {
  const { db, now, deps } = site;

  const renderKeys = (ctx: OwnerRequest, view: { notice?: string; error?: string }, status = 200) =>
    keysOf(db, ctx.caller.session.accountId, now()).then(({ keys, held }) =>
      htmlResponse(
        pages.keysPage({
          owner: ctx.caller.owner,
          keys,
          held,
          maxKeys: MAX_KEYS_PER_ACCOUNT,
          apiBase: linkBase(deps, ctx.request),
          ...view,
        }),
        { status },
      )
    );

  const showKeys = site.signedIn((ctx) => renderKeys(ctx, { notice: noticeOf(ctx.url) }));

  const createKey = site.signedIn(async (ctx) => {
    const input = CreateKey.safeParse(Object.fromEntries(ctx.form));
    if (!input.success) return renderKeys(ctx, { error: input.error.issues[0]!.message }, 400);
    if ((await keysHeld(db, ctx.caller.session.accountId, now())) >= MAX_KEYS_PER_ACCOUNT) {
      return renderKeys(ctx, { error: keysFullMessage }, 409);
    }
    const { key, plain } = await createApiKey(db, {
      accountId: ctx.caller.session.accountId,
      name: input.data.name,
      tier: "FREE",
      expiresInDays: input.data.expires === "never" ? null : Number(input.data.expires),
      now: now(),
      shape: input.data.shape,
    });
    return redirect(NEW_KEY_PAGE, [
      cookie(ctx.request, NEW_KEY_COOKIE, `${key.id}~${plain}`, NEW_KEY_COOKIE_MS, NEW_KEY_PAGE),
    ]);
  });

  const showNewKey = site.signedIn(async (ctx) => {
    const [id = "", plain = ""] = (readCookie(ctx.request, NEW_KEY_COOKIE) ?? "").split("~");
    const [key] = id ? await listApiKeys(db, { now: now(), accountId: ctx.caller.session.accountId, id }) : [];
    const cleared = cookie(ctx.request, NEW_KEY_COOKIE, "", 0, NEW_KEY_PAGE);
    if (!key || key.displayPrefix !== displayPrefix(plain)) {
      return redirect(`${KEYS_PAGE}?notice=shown-once`, [cleared]);
    }
    const shown = pages.keyCreatedPage({ owner: ctx.caller.owner, key, plain, apiBase: linkBase(deps, ctx.request) });
    return htmlResponse(shown, { headers: { "set-cookie": cleared } });
  });

  const setCondition = site.signedIn(async (ctx) => {
    const passive = ctx.form.get("passive") === "true";
    const id = ctx.form.get("id") ?? "";
    if (!(await updateApiKey(db, id, { passive }, ctx.caller.session.accountId))) throw noSuchKey(id);
    return redirect(`${KEYS_PAGE}?notice=${passive ? "passive" : "usable"}`);
  });

  const confirmDelete = site.signedIn(async (ctx) => {
    const id = ctx.url.searchParams.get("id") ?? "";
    const [key] = id ? await listApiKeys(db, { now: now(), accountId: ctx.caller.session.accountId, id }) : [];
    if (!key) throw new ApiError("key_not_found", "You have no such key; it may be deleted already.");
    return htmlResponse(pages.confirmDeletePage({ owner: ctx.caller.owner, key }));
  });

  const deleteKey = site.signedIn(async (ctx) => {
    const id = ctx.form.get("id") ?? "";
    if (!(await deleteApiKey(db, id, now(), ctx.caller.session.accountId))) throw noSuchKey(id);
    return redirect(`${KEYS_PAGE}?notice=deleted`);
  });

  return [
    { method: "GET", path: KEYS_PAGE, handler: showKeys },
    { method: "POST", path: KEYS_PAGE, handler: createKey },
    { method: "GET", path: NEW_KEY_PAGE, handler: showNewKey },
    { method: "POST", path: `${KEYS_PAGE}/condition`, handler: setCondition },
    { method: "GET", path: `${KEYS_PAGE}/delete`, handler: confirmDelete },
    { method: "POST", path: `${KEYS_PAGE}/delete`, handler: deleteKey },
  ];
}

/** The account's keys as its page lists them, and the places they and its recently deleted keys take. */
async function keysOf(db: Queryable, accountId: number, at: Date) {
  const [keys, held] = await Promise.all([listApiKeys(db, { now: at, accountId }), keysHeld(db, accountId, at)]);
  return { keys, held };
}
