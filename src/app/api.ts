// The API path: route -> bearer key -> admission (quota and burst) -> handler. A handler's error
// becomes its problem answer here, so the key's rate-limit headers go on it too; a cap the handler
// hit (429) gives the request back to the key's counts.
import { admitCaller, type LinkSettings, linkSigner } from "../auth/link-caller.ts";
import { withoutLinkTerms } from "../auth/signed-link.ts";
import { clientAddress, clientGroup, type Sender, type TrustedProxies } from "../http/client-address.ts";
import type { Download } from "../auth/api-context.ts";
import { preflightResponse } from "../http/cors.ts";
import { errorAnswer } from "./error-sink.ts";
import { ApiError } from "../http/problem.ts";
import { createRouter } from "../http/router.ts";
import { routesOf } from "../http/route.ts";
import { apiRoutes } from "./routes.ts";
import { admissionError, rateLimitHeaders } from "../limits/admission.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";
import { trackDownload } from "../metrics/downloads.ts";
import { type AdmittedKey, refundRequest } from "../store/api-keys.ts";
import type { AppDeps } from "./deps.ts";
import { type Exchange, methodNotAllowed } from "./exchange.ts";

export const API_PREFIX = "/api/v1/";

/** The client as one client counts for a limit; without a peer (a Unix socket, an in-process call) unset, and each account is its own. */
function clientOf(sender: Sender, trusted: TrustedProxies): string | undefined {
  const address = clientAddress(sender, trusted);
  return address === "unknown" ? undefined : clientGroup(address);
}

export function apiPath(
  deps: AppDeps,
  metrics: ServiceMetrics,
  now: () => Date,
): (exchange: Exchange) => Promise<Response> {
  const api = createRouter(routesOf(apiRoutes, deps));

  const linkSettings: LinkSettings = { db: deps.db, publicUrl: deps.config.PUBLIC_URL, ttlS: deps.config.LINK_TTL_S };

  /** The key the request is made with (in its header, or the one its signed link names), counted; throws the refusal when it may not be used now. */
  async function admit(exchange: Exchange, at: Date, pastDay: boolean): Promise<AdmittedKey> {
    const admission = await admitCaller(linkSettings, exchange.request, exchange.url, at, pastDay);
    exchange.notes.apiKeyId = admission.key?.id;
    const refusal = admissionError(admission, at);
    if (!refusal) return admission.key!;
    if (refusal.status === 429) metrics.quotaRefused(admission.key!.tier, refusal.code);
    throw refusal;
  }

  return async (exchange) => {
    const { request, url } = exchange;
    if (request.method === "OPTIONS") return preflightResponse(deps.config.CORS_ORIGIN, request);
    const match = api.match(request.method, url.pathname);
    const at = now();
    if (!match) {
      throw await withKeyFigures(
        linkSettings,
        exchange,
        new ApiError("not_found", `There is no operation at ${url.pathname}.`),
        at,
      );
    }
    exchange.notes.route = url.pathname;
    if ("allow" in match) throw await withKeyFigures(linkSettings, exchange, methodNotAllowed(match.allow), at);

    let admitted = await admit(exchange, at, match.handler.declared.pastDay === true);
    let answered: Response | Download;
    try {
      // A signed link's own terms are the gate's, not the operation's parameters.
      const links = linkSigner(linkSettings, request, admitted.id, at);
      const client = clientOf({ request, peer: exchange.peer }, deps.config.TRUST_PROXY);
      // An account that brought its own cookies is answered through its own parts (account-cookies/).
      const own = (await deps.accountParts?.(admitted.accountId)) ?? null;
      const handle = own === null ? match.handler.handle : match.handler.declared.handler({ ...deps, ...own });
      answered = await handle({
        request,
        url: withoutLinkTerms(url),
        log: exchange.log,
        peer: exchange.peer,
        params: match.params,
        now: at,
        caller: { key: admitted },
        client,
        whenDone: exchange.end.whenDone,
        clientProgress: exchange.clientProgress,
        links,
        linkTo: (path) => linkSigner(linkSettings, request, admitted.id, at, path),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        // A cap the handler hit (concurrent downloads): a 429 is not counted.
        await refundRequest(deps.db, admitted.id, at);
        admitted = { ...admitted, dayCount: admitted.dayCount - 1, burstCount: admitted.burstCount - 1 };
        metrics.quotaRefused(admitted.tier, error.code);
      }
      answered = errorAnswer(error, { as: "api", log: exchange.log });
    }
    trackDownload(metrics, request, answered, exchange.end.whenDone);
    const response = answered instanceof Response ? answered : answered.response;
    for (const [name, value] of Object.entries(rateLimitHeaders(admitted, at))) response.headers.set(name, value);
    return response;
  };
}

/**
 * A request the router refuses is still checked for its key, and counted like any request that
 * passes the key check (docs/api.md, Limits), so a known key's figures go on the 404 or 405 too.
 * Without a key, or with one that is not known, the refusal stays as it is.
 */
async function withKeyFigures(
  linkSettings: LinkSettings,
  exchange: Exchange,
  refusal: ApiError,
  at: Date,
): Promise<ApiError> {
  if (!exchange.request.headers.has("authorization")) return refusal;
  const key = await admitCaller(linkSettings, exchange.request, exchange.url, at).then(
    (admission) => admission.key,
    (error: unknown) => {
      // A key refused (malformed, a link gone bad) adds nothing; the store being down is told.
      if (error instanceof ApiError && error.status < 500) return undefined;
      throw error;
    },
  );
  if (!key) return refusal;
  exchange.notes.apiKeyId = key.id;
  Object.assign(refusal.headers, rateLimitHeaders(key, at));
  return refusal;
}
