// The owner's watches page: their watches, each paused, resumed or deleted with a button, and a
// form that makes one through POST /api/v1/watches as the key the owner chooses (web/owner-api.ts):
// the same checks and limits as the API's, no second way of making a watch.
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { OWNER_PAUSE } from "./watch.ts";
import { deleteWatch, pauseWatch, watchesOf } from "./store.ts";
import { htmlResponse } from "../web/html.ts";
import { noKeyProblem, ownerApi } from "../web/owner-api.ts";
import type { OwnerRequest, Site, SiteHandler } from "../web/site.ts";
import type { Watches } from "./runner.ts";
import { redirect } from "../web/site.ts";
import { WATCHES_PATH } from "./routes.ts";
import { WATCHES_PAGE, watchesPage, type WatchesView, type WatchFields } from "./pages.ts";

const notices: Record<string, string> = {
  made: "The watch is made: its first run records what the link holds now.",
  paused: "The watch is paused: no run starts until you resume it.",
  resumed: "The watch runs again.",
  deleted: "The watch is deleted; the jobs its runs made stay.",
};

const noSuchWatch = () => new ApiError("not_found", "You have no such watch.");

export interface WatchPagesDeps {
  /** The watches' runs, for the page's resume; null where no queue runs. */
  watches: Watches | null;
}

export function watchPages(site: Site, deps: WatchPagesDeps): Route<SiteHandler>[] {
  const { db, now } = site;
  const api = ownerApi(site);

  const render = async (ctx: OwnerRequest, more: Partial<WatchesView> = {}, status = 200) => {
    const watches = await watchesOf(db, ctx.caller.session.accountId);
    const keys = await api.usableKeys(ctx);
    const notice = notices[ctx.url.searchParams.get("notice") ?? ""];
    const view = { owner: ctx.caller.owner, watches, keys, keyId: keys[0]?.id, notice, ...more };
    return htmlResponse(watchesPage(view), { status });
  };

  /** A button's act on the owner's watch the form names; a watch that is none of theirs is shown as 404 on the page. */
  const act = (done: string, change: (id: string, accountId: number) => Promise<boolean>) =>
    site.signedIn(async (ctx) => {
      try {
        if (!(await change(ctx.form.get("id") ?? "", ctx.caller.session.accountId))) throw noSuchWatch();
        return redirect(`${WATCHES_PAGE}?notice=${done}`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return render(ctx, { error: error.message }, error.status);
      }
    });

  const make = site.signedIn(async (ctx) => {
    const fields: WatchFields = {
      url: (ctx.form.get("url") ?? "").trim(),
      every: (ctx.form.get("every") ?? "").trim(),
      files: ctx.form.get("files") === "true",
    };
    const keys = await api.usableKeys(ctx);
    const keyId = ctx.form.get("key") ?? keys[0]?.id;
    const key = await api.keyFor(ctx, keys, keyId ?? null);
    if (!key) {
      const { status, error } = noKeyProblem(keys.length);
      return render(ctx, { fields, keyId, error }, status);
    }
    const answer = await api.call(ctx, key, WATCHES_PATH, { body: fields });
    if (answer.ok) return redirect(`${WATCHES_PAGE}?notice=made#watch-${(await answer.json()).id}`);
    const body = await answer.json();
    return render(ctx, { fields, keyId: key.id, error: String(body.detail ?? body.title) }, answer.status);
  });

  const pause = act(
    "paused",
    async (id, accountId) => (await pauseWatch(db, { id, accountId, reason: OWNER_PAUSE, now: now() })) !== null,
  );
  const resume = act("resumed", async (id, accountId) => {
    if (deps.watches === null) throw new ApiError("busy", "This instance runs no job queue; try again later.");
    return (await deps.watches.resume({ id, accountId, now: now() })) !== null;
  });
  const remove = act("deleted", (id, accountId) => deleteWatch(db, id, accountId));

  return [
    { method: "GET", path: WATCHES_PAGE, handler: site.signedIn((ctx) => render(ctx)) },
    { method: "POST", path: WATCHES_PAGE, handler: make },
    { method: "POST", path: `${WATCHES_PAGE}/pause`, handler: pause },
    { method: "POST", path: `${WATCHES_PAGE}/resume`, handler: resume },
    { method: "POST", path: `${WATCHES_PAGE}/delete`, handler: remove },
  ];
}
