// The paste page: the owner pastes a post's link and sees the post with its downloads. The page
// calls the service's own API as the key the owner chooses, through a short-lived signed link,
// so the call is counted, limited and logged like any other, from the owner's own address (the
// per-address shares hold for it as for a call from there); the downloads are the record's
// signed links. The look is a post with the form's CSRF token: a GET only shows the form, so a
// link or a page of another site cannot spend the owner's quota or load its pictures.
import { linkBase, linkSigner } from "../auth/link-caller.ts";
import { LinkedPostRecord } from "../platforms/records.ts";
import type { Route } from "../http/router.ts";
import { type ApiKeyInfo, createApiKey, keysHeld, listApiKeys } from "../store/api-keys.ts";
import { htmlResponse, securityHeaders } from "./html.ts";
import { MAX_KEYS_PER_ACCOUNT } from "./key-routes.ts";
import { PASTE_KEY_NAME, pastePage, type PasteView } from "./paste-page.ts";
import type { OwnerRequest, Site, SiteHandler } from "./site.ts";

export const PASTE_PAGE = "/paste";
/** The page's own call is made at once; its link need not outlive it. */
const CALL_LINK_TTL_S = 60;
/** What the API call carries of the owner's request: the address a trusted proxy says it came from. */
const FORWARDED = ["x-forwarded-for"];

// The post's pictures come from the platform's servers: the one page that shows images of other origins.
const picturePolicy = securityHeaders["content-security-policy"]!.replace(
  "img-src 'self'",
  "img-src 'self' https: http:",
);

export function pasteRoutes(site: Site): Route<SiteHandler>[] {
  const { db, now, deps } = site;

  const usableKeys = async (ctx: OwnerRequest) =>
    (await listApiKeys(db, { now: now(), accountId: ctx.session.accountId })).filter((key) =>
      key.condition === "usable"
    );

  /** The chosen key; with no usable one, a key made for the page, or null when the account has no room for one. */
  async function keyFor(ctx: OwnerRequest, keys: ApiKeyInfo[], keyId: string | null): Promise<ApiKeyInfo | null> {
    if (keys.length > 0) return keys.find((candidate) => candidate.id === keyId) ?? null;
    if ((await keysHeld(db, ctx.session.accountId, now())) >= MAX_KEYS_PER_ACCOUNT) return null;
    const made = await createApiKey(db, {
      accountId: ctx.session.accountId,
      name: PASTE_KEY_NAME,
      tier: "FREE",
      expiresInDays: null,
      now: now(),
    });
    return made.key;
  }

  /** The API's answer for `link` as `key`, asked as the owner's client would ask it. */
  async function askApi(ctx: OwnerRequest, key: ApiKeyInfo, link: string): Promise<Response> {
    // At the request's own address, whatever PUBLIC_URL says: this call never leaves the process.
    const callLink = await linkSigner({ db, ttlS: CALL_LINK_TTL_S }, ctx.request, key.id, now(), "/api/v1/post")({
      url: link,
    });
    const headers = new Headers();
    for (const name of FORWARDED) {
      const value = ctx.request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    return deps.api(new Request(callLink, { headers, signal: ctx.request.signal }), ctx.peer);
  }

  const handle = site.signedIn(async (ctx) => {
    const keys = await usableKeys(ctx);
    const asked = ctx.request.method === "POST" ? ctx.form : ctx.url.searchParams;
    const link = (asked.get("url") ?? "").trim();
    const keyId = asked.get("key") ?? keys[0]?.id;
    const view: PasteView = { owner: ctx.owner, keys, link, keyId, apiBase: linkBase(deps, ctx.request) };
    const render = (more: Partial<PasteView>, status = 200) =>
      htmlResponse(pastePage({ ...view, ...more }), { status, headers: { "content-security-policy": picturePolicy } });
    if (ctx.request.method !== "POST" || !link) return render({});
    const key = await keyFor(ctx, keys, keyId ?? null);
    if (!key) {
      const error = keys.length > 0
        ? "Choose one of your usable keys."
        : `You have no usable key, and your account holds ${MAX_KEYS_PER_ACCOUNT} keys: make one of them usable, or delete one, on the keys page.`;
      return render({ error }, keys.length > 0 ? 400 : 409);
    }
    const shown = { keys: keys.length > 0 ? keys : [key], keyId: key.id };
    const answer = await askApi(ctx, key, link);
    const body = await answer.json();
    if (!answer.ok) return render({ ...shown, error: String(body.detail ?? body.title) }, answer.status);
    return render({ ...shown, post: LinkedPostRecord.parse(body) });
  });

  return [
    { method: "GET", path: PASTE_PAGE, handler: handle },
    { method: "POST", path: PASTE_PAGE, handler: handle },
  ];
}
