// The owner's cookies page (ACCOUNT_COOKIES=on): the account's files by platform, adding or
// replacing one, deleting one. A file is checked as the operator's are (a Netscape file), and only
// its lines for the platform's own hosts are kept, sealed; nothing of it is ever shown back.
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { cookieFileFault } from "../platforms/tools/ytdlp/cookie-file.ts";
import { cookiesForHosts } from "../platforms/cookie-jars.ts";
import { htmlResponse } from "../web/html.ts";
import type { OwnerRequest, Site, SiteHandler } from "../web/site.ts";
import { redirect } from "../web/site.ts";
import { COOKIES_PAGE, cookiesPage } from "./pages.ts";
import { cookiesListed, deleteCookies, keepCookies } from "./store.ts";

/** The largest form the page takes: a browser's export for one platform is a few kilobytes. */
export const MAX_COOKIES_FORM_BYTES = 256 * 1024;

const notices: Record<string, string> = {
  kept: "The cookies are kept. Your keys' calls to that platform use them from now on.",
  deleted: "The cookies are deleted. Your keys' calls to that platform use the server's again.",
};

export interface CookiePagesDeps {
  /** The platforms a file may be for, and the hosts each one's cookies may go to. */
  platforms: readonly { id: string; name: string }[];
  trafficHosts: (platform: string) => readonly string[];
}

export function cookiePages(site: Site, deps: CookiePagesDeps): Route<SiteHandler>[] {
  const { db, now } = site;

  const render = async (ctx: OwnerRequest, error?: string, status = 200) => {
    const files = await cookiesListed(db, ctx.caller.session.accountId);
    const notice = notices[ctx.url.searchParams.get("notice") ?? ""];
    const page = cookiesPage({ owner: ctx.caller.owner, files, platforms: deps.platforms, notice, error });
    return htmlResponse(page, { status });
  };

  const orError = (act: (ctx: OwnerRequest) => Promise<Response>) =>
    site.signedIn(async (ctx) => {
      try {
        return await act(ctx);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return render(ctx, error.message, error.status);
      }
    }, MAX_COOKIES_FORM_BYTES);

  const add = orError(async (ctx) => {
    const platform = platformOf(deps, ctx.form.get("platform"));
    const content = usableCookies(ctx.form.get("cookies") ?? "", deps.trafficHosts(platform.id), platform.name);
    await keepCookies(db, { accountId: ctx.caller.session.accountId, platform: platform.id, content, now: now() });
    return redirect(`${COOKIES_PAGE}?notice=kept`);
  });

  const remove = orError(async (ctx) => {
    if (!(await deleteCookies(db, ctx.caller.session.accountId, ctx.form.get("id") ?? ""))) {
      throw new ApiError("not_found", "You have no cookies for that platform.");
    }
    return redirect(`${COOKIES_PAGE}?notice=deleted`);
  });

  return [
    { method: "GET", path: COOKIES_PAGE, handler: site.signedIn((ctx) => render(ctx)) },
    { method: "POST", path: COOKIES_PAGE, handler: add },
    { method: "POST", path: `${COOKIES_PAGE}/delete`, handler: remove },
  ];
}

function platformOf(deps: CookiePagesDeps, id: string | null): { id: string; name: string } {
  const found = deps.platforms.find((each) => each.id === id);
  if (found === undefined) throw new ApiError("invalid_parameter", "Choose one of the platforms listed.");
  return found;
}

/** The file's lines for the platform's hosts; 400 for no Netscape file, or one with no cookie of the platform. */
function usableCookies(text: string, hosts: readonly string[], name: string): Uint8Array {
  const content = new TextEncoder().encode(text.replace(/\r\n/g, "\n").trimStart());
  const fault = cookieFileFault(content);
  if (fault !== null) throw new ApiError("invalid_parameter", `This is not a Netscape cookie file: ${fault}.`);
  const kept = cookiesForHosts(content, hosts);
  const cookies = new TextDecoder().decode(kept).split("\n").filter((line) =>
    line.trim() !== "" && (!line.startsWith("#") || line.startsWith("#HttpOnly_"))
  );
  if (cookies.length === 0) {
    throw new ApiError("invalid_parameter", `The file holds no cookie of ${name}'s hosts (${hosts.join(", ")}).`);
  }
  return kept;
}
