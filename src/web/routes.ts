// The owner's site: signing in and out (sign-in-routes.ts), the keys page (key-routes.ts), the
// account (account-routes.ts), the paste page (paste-routes.ts), the site's own files, and the
// pages of the account features (jobs/, webhooks/, watches/), which the app hands in. Every
// handler answers HTML with the security headers; an ApiError thrown below becomes an HTML page
// with its status and detail (site.ts).
import type { Route } from "../http/router.ts";
import { accountRoutes } from "./account-routes.ts";
import { assetResponse, assets } from "./assets.ts";
import { keyRoutes } from "./key-routes.ts";
import { pasteRoutes } from "./paste-routes.ts";
import { signInRoutes } from "./sign-in-routes.ts";
import { KEYS_PAGE, redirect, type Site, type SiteHandler, siteOf, type WebDeps } from "./site.ts";

export { MAX_KEYS_PER_ACCOUNT } from "./key-routes.ts";
export { SIGN_IN_LIMITS } from "./password-checks.ts";
export { SIGN_UP_WINDOW_MS } from "./sign-in-routes.ts";
export { JOBS_PAGE, KEYS_PAGE, type Site, type SiteHandler, type WebDeps } from "./site.ts";

/** An account feature's pages, built on the site's shared parts. */
export type FeaturePages = (site: Site) => Route<SiteHandler>[];

export function webRoutes(deps: WebDeps, features: readonly FeaturePages[] = []): Route<SiteHandler>[] {
  const site = siteOf(deps);
  return [
    { method: "GET", path: "/", handler: site.page(async () => redirect(KEYS_PAGE)) },
    ...signInRoutes(site),
    ...keyRoutes(site),
    ...accountRoutes(site),
    ...pasteRoutes(site),
    ...features.flatMap((pages) => pages(site)),
    ...Object.keys(assets).map((path) => ({
      method: "GET" as const,
      path,
      handler: site.page(async () => assetResponse(path)),
    })),
  ];
}
