// Everything outside the API: the probes (/healthz, /readyz), /metrics and /platformz, the API's
// documents (/docs, its OpenAPI document), and the owner's pages (src/web/).
import type { AppDeps } from "./deps.ts";
import type { PlatformChecks } from "../doctor/checker.ts";
import { platformsResponse } from "../doctor/endpoint.ts";
import { docsResponse } from "./docs.ts";
import { errorAnswer } from "./error-sink.ts";
import { healthResponse } from "../http/health.ts";
import { json } from "../http/json-response.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { ApiError } from "../http/problem.ts";
import { type ReadinessCheck, readinessResponse } from "../http/readiness.ts";
import { createRouter, type Route } from "../http/router.ts";
import { metricsResponse, type OperatorAccess } from "../metrics/endpoint.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";
import { type Site, type SiteHandler, webRoutes } from "../web/routes.ts";
import { webhookPages } from "../webhooks/site-routes.ts";
import { watchPages } from "../watches/site-routes.ts";
import { jobPages } from "../jobs/site-routes.ts";
import { cookiePages } from "../account-cookies/site-routes.ts";
import { platformList } from "../platforms/list.ts";
import { trafficHosts } from "../platforms/table.ts";
import { type Exchange, methodNotAllowed } from "./exchange.ts";

export const OPENAPI_PATH = "/api/v1/openapi.json";

/** `api` is the app's own API, which the paste page calls as the owner's key. */
export function sitePath(
  deps: AppDeps,
  metrics: ServiceMetrics,
  now: () => Date,
  api: (request: Request, peer: string | undefined) => Promise<Response>,
): (exchange: Exchange) => Promise<Response> {
  // Built at its first request, not at every start: ~0.1 s of CPU (0.5 s on a busy machine) that no first call needs.
  let openApiDocument: Record<string, unknown> | undefined;
  const openApi = () => (openApiDocument ??= buildOpenApiDocument());
  const readinessChecks: ReadinessCheck[] = [
    {
      name: "store",
      check: async () => {
        await deps.db.query("SELECT 1");
        await deps.db.ready?.();
      },
    },
    ...(deps.readinessChecks ?? []),
  ];
  const operator: OperatorAccess = { token: deps.config.METRICS_TOKEN, trustProxy: deps.config.TRUST_PROXY };
  const site = createRouter<SiteHandler>([
    {
      method: "GET",
      path: "/healthz",
      handler: ({ log }) => healthResponse(deps.db, deps.config.HEALTH_TIMEOUT_MS, log),
    },
    ...webRoutes({
      db: deps.db,
      now,
      signup: deps.config.SIGNUP,
      signupsPerClient: deps.config.SIGNUPS_PER_CLIENT,
      trustProxy: deps.config.TRUST_PROXY,
      publicUrl: deps.config.PUBLIC_URL,
      api,
      log: deps.log,
      pageError: (error, log) => errorAnswer(error, { as: "page", log }),
    }, [
      (site) => webhookPages(site, { webhookTargets: deps.webhookTargets, deliveries: deps.deliveries ?? null }),
      (site) => watchPages(site, { watches: deps.watches ?? null }),
      (site) => jobPages(site, { linkTtlS: deps.config.LINK_TTL_S }),
      ...(deps.config.ACCOUNT_COOKIES === "on"
        ? [(site: Site) => cookiePages(site, { platforms: platformList, trafficHosts })]
        : []),
    ]),
    {
      method: "GET",
      path: "/readyz",
      handler: () => readinessResponse(readinessChecks, deps.config.HEALTH_TIMEOUT_MS),
    },
    {
      method: "GET",
      path: "/metrics",
      handler: (ctx) => metricsResponse(ctx, metrics, operator),
    },
    ...platformRoutes(deps.platformChecks, operator),
    { method: "GET", path: "/docs", handler: () => docsResponse(openApi()) },
    // Public and not counted: a client generator needs it before it has a key.
    { method: "GET", path: OPENAPI_PATH, handler: async () => json(openApi()) },
  ]);

  return async (exchange) => {
    const match = site.match(exchange.request.method, exchange.url.pathname);
    if (!match) throw new ApiError("not_found", `Nothing here at ${exchange.url.pathname}.`);
    exchange.notes.route = exchange.url.pathname;
    if ("allow" in match) throw methodNotAllowed(match.allow);
    const { request, url, log, peer } = exchange;
    return match.handler({ request, url, log, peer, params: match.params, now: now(), caller: undefined });
  };
}

function platformRoutes(checks: PlatformChecks | undefined, operator: OperatorAccess): Route<SiteHandler>[] {
  return checks
    ? [{
      method: "GET",
      path: "/platformz",
      handler: (ctx) => platformsResponse(ctx, checks, operator),
    }]
    : [];
}
