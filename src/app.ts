// The whole service as one Fetch-API function. Every request walks one line:
// CORS preflight -> route -> bearer key -> admission (quota + burst) -> handler, and every
// error on the way becomes one problem+json response here.
import { readBearerKey } from "./auth/bearer.ts";
import { hashKey } from "./auth/api-key.ts";
import type { Config } from "./config.ts";
import type { ApiHandler } from "./http/context.ts";
import { declaredLength } from "./http/content-length.ts";
import { json } from "./http/json-response.ts";
import { corsHeaders, preflightResponse } from "./http/cors.ts";
import { ApiError, logProblem, problemResponse } from "./http/problem.ts";
import { createRouter, type Route } from "./http/router.ts";
import { admissionError, rateLimitHeaders } from "./limits/admission.ts";
import { usageHandler } from "./limits/usage.ts";
import { causeText, withFields, type Logger } from "./log.ts";
import { admitRequest, refundRequest } from "./store/api-keys.ts";
import { StoreFullError, StoreUnavailableError, type Db } from "./store/db.ts";
import { downloadHandler, type DownloadDeps } from "./handlers/download.ts";
import { healthResponse } from "./http/health.ts";
import { postHandler, type PostDeps } from "./handlers/post.ts";
import { tweetHandler } from "./handlers/tweet.ts";
import type { TweetSource } from "./platforms/x/source.ts";
import { webRoutes, type SiteHandler } from "./web/routes.ts";
import { docsResponse } from "./http/docs.ts";
import { buildOpenApiDocument } from "./http/openapi.ts";
import { requestIdFrom } from "./http/request-id.ts";
import { whenResponseDone, type BodyEnd } from "./http/response-done.ts";
import { readinessResponse, type ReadinessCheck } from "./http/readiness.ts";
import { brokenTransferCause, trackDownload } from "./metrics/downloads.ts";
import { metricsResponse } from "./metrics/endpoint.ts";
import type { PlatformChecks } from "./doctor/checker.ts";
import { platformsResponse } from "./doctor/endpoint.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";

/** The outside world the operations reach: X, media hosts, yt-dlp and ffmpeg (built by createAppDeps). */
export interface AppDeps extends DownloadDeps, PostDeps {
  tweets: TweetSource;
  config: Pick<Config, "CORS_ORIGIN" | "HEALTH_TIMEOUT_MS" | "METRICS_TOKEN" | "SIGNUP" | "SIGNUPS_PER_CLIENT" | "TRUST_PROXY">;
  db: Db;
  log: Logger;
  /** Injected so tests can move time without sleeping. */
  now?: () => Date;
  /** Shared with the upstream clients so they count their calls; a fresh one when not given. */
  metrics?: ServiceMetrics;
  /** Checks /readyz runs besides the store's, such as the media tools' presence. */
  readinessChecks?: ReadinessCheck[];
  /** The platform check, whose latest picture GET /platformz shows. */
  platformChecks?: PlatformChecks;
}

export interface App {
  fetch(request: Request): Promise<Response>;
}

const API_PREFIX = "/api/v1/";
const OPENAPI_PATH = "/api/v1/openapi.json";

export function createApp(deps: AppDeps): App {
  const now = deps.now ?? (() => new Date());
  const metrics = deps.metrics ?? createServiceMetrics();
  const openApiDocument = buildOpenApiDocument();
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
  const apiRoutes: Route<ApiHandler>[] = [
    { method: "GET", path: "/api/v1/usage", handler: usageHandler },
    { method: "GET", path: "/api/v1/post", handler: postHandler(deps) },
    { method: "GET", path: "/api/v1/tweet", handler: tweetHandler(deps.tweets) },
    { method: "GET", path: "/api/v1/download", handler: downloadHandler(deps) },
  ];
  const api = createRouter(apiRoutes);
  // A site handler may take the request's logger, whose lines carry the request's id.
  const site = createRouter<(request: Request, log: Logger) => ReturnType<SiteHandler>>([
    { method: "GET", path: "/healthz", handler: (_request, log) => healthResponse(deps.db, deps.config.HEALTH_TIMEOUT_MS, log) },
    ...webRoutes({ db: deps.db, now, signup: deps.config.SIGNUP, signupsPerClient: deps.config.SIGNUPS_PER_CLIENT, trustProxy: deps.config.TRUST_PROXY, log: deps.log }),
    { method: "GET", path: "/readyz", handler: () => readinessResponse(readinessChecks, deps.config.HEALTH_TIMEOUT_MS) },
    { method: "GET", path: "/metrics", handler: (request) => metricsResponse(request, metrics, deps.config.METRICS_TOKEN) },
    ...platformRoutes(deps.platformChecks, deps.config.METRICS_TOKEN),
    { method: "GET", path: "/docs", handler: () => docsResponse(openApiDocument) },
    // Public and not counted: a client generator needs it before it has a key.
    { method: "GET", path: OPENAPI_PATH, handler: async () => json(openApiDocument) },
  ]);

  async function serveApi(request: Request, url: URL, log: RequestLog, logger: Logger): Promise<Response> {
    if (request.method === "OPTIONS") return preflightResponse(deps.config.CORS_ORIGIN, request);
    const match = api.match(request.method, url.pathname);
    if (!match) throw new ApiError("not_found", `There is no operation at ${url.pathname}.`);
    log.route = url.pathname;
    if ("allow" in match) throw methodNotAllowed(match.allow);

    const key = readBearerKey(request);
    const at = now();
    const admission = await admitRequest(deps.db, await hashKey(key), at);
    log.apiKeyId = admission.key?.id;
    const refusal = admissionError(admission, at);
    if (refusal) {
      if (refusal.status === 429) metrics.quotaRefused(admission.key!.tier, refusal.code);
      throw refusal;
    }
    let admitted = admission.key!;
    let response: Response;
    try {
      response = await match.handler({ request, url, key: admitted, now: at });
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        // A cap the handler hit (concurrent downloads): a 429 is not counted.
        await refundRequest(deps.db, admitted.id, at);
        admitted = { ...admitted, dayCount: admitted.dayCount - 1, burstCount: admitted.burstCount - 1 };
        metrics.quotaRefused(admitted.tier, error.code);
      }
      response = problemFor(error, logger);
    }
    trackDownload(metrics, request, response);
    for (const [name, value] of Object.entries(rateLimitHeaders(admitted))) response.headers.set(name, value);
    return response;
  }

  async function serveSite(request: Request, url: URL, log: RequestLog, logger: Logger): Promise<Response> {
    const match = site.match(request.method, url.pathname);
    if (!match) throw new ApiError("not_found", `Nothing here at ${url.pathname}.`);
    log.route = url.pathname;
    if ("allow" in match) throw methodNotAllowed(match.allow);
    return match.handler(request, logger);
  }

  return {
    async fetch(request) {
      const started = performance.now();
      const url = new URL(request.url);
      const requestId = requestIdFrom(request.headers.get("x-request-id"));
      // Every line about this request carries its id, as its answer does.
      const logger = withFields(deps.log, { requestId });
      const log: RequestLog = {};
      const isApi = url.pathname.startsWith(API_PREFIX) && url.pathname !== OPENAPI_PATH;
      let response: Response;
      try {
        response = isApi ? await serveApi(request, url, log, logger) : await serveSite(request, url, log, logger);
      } catch (error) {
        response = problemFor(error, logger);
      }
      if (isApi || url.pathname === OPENAPI_PATH) {
        for (const [name, value] of Object.entries(corsHeaders(deps.config.CORS_ORIGIN))) response.headers.set(name, value);
      }
      response.headers.set("x-request-id", requestId);
      const seconds = (performance.now() - started) / 1000;
      // Only route patterns become labels; an unknown path could hold anything.
      const route = log.route ?? "unmatched";
      metrics.requestServed(route, response.status, seconds);
      logger.info("request", {
        method: request.method,
        route,
        path: url.pathname,
        status: response.status,
        durationMs: Math.round(seconds * 10_000) / 10,
        bytes: request.method === "HEAD" ? 0 : declaredLength(response),
        apiKeyId: log.apiKeyId,
      });
      if (request.method === "HEAD") return withoutBody(response);
      if (response.body !== null) whenResponseDone(request, (end) => logBodyEnd(logger, route, end));
      return response;
    },
  };
}

function platformRoutes(checks: PlatformChecks | undefined, token: string | undefined): Route<SiteHandler>[] {
  return checks ? [{ method: "GET", path: "/platformz", handler: (request) => platformsResponse(request, checks, token) }] : [];
}

interface RequestLog {
  /** The matched route's pattern; unset for a path no route knows. */
  route?: string;
  apiKeyId?: string;
}

/**
 * A second line with the request's id once its body is over: the first was written at the response
 * head, with the status, before the body could break. A body cut by an error is a warning.
 */
function logBodyEnd(log: Logger, route: string, end: BodyEnd): void {
  if (end.ended === "complete") log.debug("body ended", { route, ended: end.ended });
  else if (end.ended === "cut by client") log.info("body ended", { route, ended: end.ended });
  else log.warn("body ended", { route, ended: end.ended, cause: brokenTransferCause(end.error), error: causeText(end.error) });
}

function storeUnavailable(error: StoreUnavailableError): ApiError {
  const detail =
    error instanceof StoreFullError
      ? "The service cannot write to its database right now; try again later."
      : "The service cannot reach its database right now; try again shortly.";
  return new ApiError("store_unavailable", detail, {
    headers: { "retry-after": String(error.retryAfterS) },
    cause: error,
  });
}

function methodNotAllowed(allow: string[]): ApiError {
  return new ApiError("method_not_allowed", `Use ${allow.join(" or ")} here.`, { headers: { allow: allow.join(", ") } });
}

/** The problem answer to what a handler threw, logged as logProblem says. */
function problemFor(thrown: unknown, log: Logger): Response {
  const error = thrown instanceof StoreUnavailableError ? storeUnavailable(thrown) : thrown;
  logProblem(error, log);
  return problemResponse(error);
}


function withoutBody(response: Response): Response {
  if (!response.body) return response;
  void response.body.cancel();
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}
