// The whole service as one app its server adapter serves (runtime/serve.ts). Every request walks
// one line: the API path (app/api.ts: CORS preflight -> route -> bearer key -> admission ->
// handler) or the site's (app/site.ts), and every error on the way becomes its answer in the one
// error sink (http/error-sink.ts); then the request is logged (app/request-log.ts) and handed back
// with what the adapter needs to send it.
import type { Config } from "./config.ts";
import type { PlatformChecks } from "./doctor/checker.ts";
import { corsHeaders } from "./http/cors.ts";
import { errorAnswer } from "./http/error-sink.ts";
import { nativeBodyReply } from "./http/native-body.ts";
import type { ReadinessCheck } from "./http/readiness.ts";
import { requestIdFrom } from "./http/request-id.ts";
import { responseEnd } from "./http/response-done.ts";
import type { DownloadDeps } from "./handlers/download.ts";
import type { DeliveryDeps } from "./events/delivery.ts";
import type { Jobs } from "./jobs/runner.ts";
import type { EgressPolicy } from "./media/egress.ts";
import type { PostDeps } from "./handlers/post.ts";
import type { TweetSource } from "./platforms/x/source.ts";
import { type Logger, withFields } from "./log.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import type { Arrival, Reply, Served } from "./runtime/serve.ts";
import type { Db } from "./store/db.ts";
import { API_PREFIX, apiPath } from "./app/api.ts";
import type { Exchange } from "./app/exchange.ts";
import { logBodyEnd, logRequest } from "./app/request-log.ts";
import { OPENAPI_PATH, sitePath } from "./app/site.ts";

/** The outside world the operations reach: X, media hosts, yt-dlp and ffmpeg (built by createAppDeps). */
export interface AppDeps extends DownloadDeps, PostDeps {
  tweets: TweetSource;
  config: Pick<
    Config,
    | "CORS_ORIGIN"
    | "HEALTH_TIMEOUT_MS"
    | "LINK_TTL_S"
    | "METRICS_TOKEN"
    | "PUBLIC_URL"
    | "SIGNUP"
    | "SIGNUPS_PER_CLIENT"
    | "TRUST_PROXY"
  >;
  db: Db;
  /** The job queue's side of this instance (src/jobs/); without it the jobs' operations answer 503. */
  jobs?: Jobs | null;
  /** Webhook deliveries on the same queue (src/events/); without them the owner's page cannot resend. */
  deliveries?: DeliveryDeps | null;
  webhookTargets: EgressPolicy;
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

export interface App extends Served {
  /**
   * In-process, as a client sees it: the response alone, from `peer` (none by default). Nobody
   * tells it when a body is over but the request's signal: use `answer` to say so.
   */
  fetch(request: Request, peer?: string): Promise<Response>;
}

export function createApp(deps: AppDeps): App {
  const now = deps.now ?? (() => new Date());
  const metrics = deps.metrics ?? createServiceMetrics();
  const serveApi = apiPath(deps, metrics, now);
  // The paste page calls the API in-process, as a client would (the app is made below).
  const serveSite = sitePath(deps, metrics, now, (request) => app.fetch(request));
  const cors = Object.entries(corsHeaders(deps.config.CORS_ORIGIN));

  async function answer(request: Request, arrival: Arrival): Promise<Reply> {
    const started = performance.now();
    const url = new URL(request.url);
    // Every line about this request carries its id, as its answer does.
    const log = withFields(deps.log, { requestId: arrival.requestId });
    const exchange: Exchange = {
      request,
      url,
      peer: arrival.peer,
      clientProgress: arrival.clientProgress,
      log,
      end: responseEnd(request.signal),
      notes: {},
    };
    const isApi = url.pathname.startsWith(API_PREFIX) && url.pathname !== OPENAPI_PATH;
    let response: Response;
    try {
      response = isApi ? await serveApi(exchange) : await serveSite(exchange);
    } catch (error) {
      response = errorAnswer(error, { as: "api", log });
    }
    if (isApi || url.pathname === OPENAPI_PATH) { for (const [name, value] of cors) response.headers.set(name, value); }
    response.headers.set("x-request-id", arrival.requestId);
    const route = logRequest(log, metrics, request, response, exchange.notes, started);
    const done = exchange.end.done;
    if (request.method === "HEAD") return { response: withoutBody(response), done };
    if (response.body !== null) exchange.end.whenDone((end) => logBodyEnd(log, route, end));
    return { response, nativeBody: nativeBodyReply(response), done };
  }

  const app: App = {
    answer,
    // What the adapter refuses before there is a request is answered as the API would be.
    refuse: (error, requestId) =>
      errorAnswer(error, {
        as: "api",
        log: withFields(deps.log, { requestId }),
        requestId,
        corsOrigin: deps.config.CORS_ORIGIN,
      }),
    fetch: async (request, peer) =>
      (await answer(request, { peer, requestId: requestIdFrom(request.headers.get("x-request-id")) })).response,
  };
  return app;
}

/**
 * The answer to HEAD: GET's status and headers without the body. A JSON answer leaves out its
 * Content-Type too: there is no document to type, and clients and validating proxies (Prism)
 * that parse by Content-Type would fail on the empty body. A file keeps its type.
 */
function withoutBody(response: Response): Response {
  const json = /^application\/(?:[\w.+-]+\+)?json\b/.test(response.headers.get("content-type") ?? "");
  if (!response.body && !json) return response;
  void response.body?.cancel();
  const headers = new Headers(response.headers);
  if (json) headers.delete("content-type");
  return new Response(null, { status: response.status, statusText: response.statusText, headers });
}
