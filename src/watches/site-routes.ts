// The owner's watches page: their watches, each paused, resumed or deleted with a button. The
// same rules as the API's (routes.ts); making a watch is the API's.
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { OWNER_PAUSE } from "./watch.ts";
import { deleteWatch, pauseWatch, watchesOf } from "./store.ts";
import { htmlResponse } from "../web/html.ts";
import type { OwnerRequest, Site, SiteHandler } from "../web/site.ts";
import type { Watches } from "./runner.ts";
import { redirect } from "../web/site.ts";
import { WATCHES_PAGE, watchesPage } from "./pages.ts";

const notices: Record<string, string> = {
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

  const render = async (ctx: OwnerRequest, error?: string, status = 200) => {
    const watches = await watchesOf(db, ctx.session.accountId);
    const notice = notices[ctx.url.searchParams.get("notice") ?? ""];
    return htmlResponse(watchesPage({ owner: ctx.owner, watches, notice, error }), { status });
  };

  /** A button's act on the owner's watch the form names; a watch that is none of theirs is shown as 404 on the page. */
  const act = (done: string, change: (id: string, accountId: number) => Promise<boolean>) =>
    site.signedIn(async (ctx) => {
      try {
        if (!(await change(ctx.form.get("id") ?? "", ctx.session.accountId))) throw noSuchWatch();
        return redirect(`${WATCHES_PAGE}?notice=${done}`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return render(ctx, error.message, error.status);
      }
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
    { method: "POST", path: `${WATCHES_PAGE}/pause`, handler: pause },
    { method: "POST", path: `${WATCHES_PAGE}/resume`, handler: resume },
    { method: "POST", path: `${WATCHES_PAGE}/delete`, handler: remove },
  ];
}
