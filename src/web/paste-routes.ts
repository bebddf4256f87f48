// The paste page: the owner pastes a post's link and sees the post with its downloads. The page
// calls the service's own API as the key the owner chooses, through a short-lived signed link,
// so the call is counted, limited and logged like any other; the downloads are the record's
// signed links.
import { linkBase, linkSigner } from "../auth/link-caller.ts";
import { LinkedPostRecord } from "../platforms/records.ts";
import type { Route } from "../http/router.ts";
import { listApiKeys } from "../store/api-keys.ts";
import { htmlResponse, securityHeaders } from "./html.ts";
import { pastePage, type PasteView } from "./paste-page.ts";
import type { Site, SiteHandler } from "./site.ts";

export const PASTE_PAGE = "/paste";
/** The page's own call is made at once; its link need not outlive it. */
const CALL_LINK_TTL_S = 60;

// The post's pictures come from the platform's servers: the one page that shows images of other origins.
const picturePolicy = securityHeaders["content-security-policy"]!.replace(
  "img-src 'self'",
  "img-src 'self' https: http:",
);

export function pasteRoutes(site: Site): Route<SiteHandler>[] {
  const { db, now, deps } = site;

  const show = site.signedIn(async (ctx) => {
    const keys = (await listApiKeys(db, { now: now(), accountId: ctx.session.accountId })).filter((key) =>
      key.condition === "usable"
    );
    const link = (ctx.url.searchParams.get("url") ?? "").trim();
    const keyId = ctx.url.searchParams.get("key") ?? keys[0]?.id;
    const view: PasteView = { owner: ctx.owner, keys, link, keyId, apiBase: linkBase(deps, ctx.request) };
    const render = (more: Partial<PasteView>, status = 200) =>
      htmlResponse(pastePage({ ...view, ...more }), { status, headers: { "content-security-policy": picturePolicy } });
    if (!link) return render({});
    const key = keys.find((candidate) => candidate.id === keyId);
    if (!key) return render({ error: "Choose one of your usable keys." }, 400);
    // At the request's own address, whatever PUBLIC_URL says: this call never leaves the process.
    const callLink = await linkSigner({ db, ttlS: CALL_LINK_TTL_S }, ctx.request, key.id, now(), "/api/v1/post")({
      url: link,
    });
    const answer = await deps.api(new Request(callLink));
    const body = await answer.json();
    if (!answer.ok) return render({ error: String(body.detail ?? body.title) }, answer.status);
    return render({ post: LinkedPostRecord.parse(body) });
  });

  return [{ method: "GET", path: PASTE_PAGE, handler: show }];
}
