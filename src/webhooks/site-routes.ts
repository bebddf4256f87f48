// The owner's webhooks page: their endpoints with each one's latest attempts, adding one (its
// secret shown once), rotating a secret, deleting one and resending an event. The same rules as
// the API's (endpoints.ts); an ApiError below becomes the page again with its words.
import { resendMessage } from "./delivery.ts";
import { endpointIdOf, noSuchEndpoint, registerEndpoint, rotateEndpoint } from "./endpoints.ts";
import { EVENT_TYPES, type EventType } from "./types.ts";
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { deleteEndpoint, endpointsOf, recentAttempts } from "./store.ts";
import { htmlResponse } from "../web/html.ts";
import type { OwnerRequest, Site, SiteHandler } from "../web/site.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { DeliveryDeps } from "./delivery.ts";
import { redirect } from "../web/site.ts";
import { WEBHOOKS_PAGE, webhooksPage } from "./pages.ts";

const ATTEMPTS_SHOWN = 10;
const notices: Record<string, string> = {
  deleted: "The endpoint is deleted; its events go with it.",
  resent: "The event is queued to be sent again.",
};

export interface WebhookPagesDeps {
  /** Where a webhook receiver may be: public addresses, and the operator's WEBHOOK_EXTRA_HOSTS. */
  webhookTargets: EgressPolicy;
  /** Webhook deliveries, for the page's resend; null where no queue runs. */
  deliveries: DeliveryDeps | null;
}

export function webhookPages(site: Site, deps: WebhookPagesDeps): Route<SiteHandler>[] {
  const { db, now } = site;

  const render = async (
    ctx: OwnerRequest,
    view: { secret?: { id: string; value: string }; error?: string },
    status = 200,
  ) => {
    const endpoints = await endpointsOf(db, ctx.caller.session.accountId);
    const withAttempts = await Promise.all(
      endpoints.map(async (endpoint) => ({
        endpoint,
        attempts: await recentAttempts(db, endpoint.id, ATTEMPTS_SHOWN),
      })),
    );
    const notice = notices[ctx.url.searchParams.get("notice") ?? ""];
    return htmlResponse(webhooksPage({ owner: ctx.caller.owner, endpoints: withAttempts, notice, ...view }), {
      status,
    });
  };

  /** Runs `act`; an ApiError it throws is shown on the page with its status. */
  const orError = (act: (ctx: OwnerRequest) => Promise<Response>) =>
    site.signedIn(async (ctx) => {
      try {
        return await act(ctx);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return render(ctx, { error: error.message }, error.status);
      }
    });

  const add = orError(async (ctx) => {
    const events = ctx.form.getAll("events").filter((type): type is EventType =>
      EVENT_TYPES.includes(type as EventType)
    );
    if (events.length === 0) throw new ApiError("invalid_parameter", "Choose at least one event.");
    const made = await registerEndpoint(db, deps.webhookTargets, {
      accountId: ctx.caller.session.accountId,
      url: ctx.form.get("url") ?? "",
      events,
    });
    return render(ctx, { secret: { id: made.endpoint.id, value: made.secret } }, 201);
  });

  const rotate = orError(async (ctx) => {
    const rotated = await rotateEndpoint(db, {
      id: ctx.form.get("id") ?? "",
      accountId: ctx.caller.session.accountId,
      now: now(),
    });
    return render(ctx, { secret: { id: rotated.endpoint.id, value: rotated.secret } });
  });

  const remove = orError(async (ctx) => {
    const id = endpointIdOf(ctx.form.get("id") ?? "");
    if (!(await deleteEndpoint(db, id, ctx.caller.session.accountId))) throw noSuchEndpoint();
    return redirect(`${WEBHOOKS_PAGE}?notice=deleted`);
  });

  const resend = orError(async (ctx) => {
    if (deps.deliveries === null) throw new ApiError("busy", "This instance runs no delivery queue; try again later.");
    const sent = await resendMessage(deps.deliveries, ctx.form.get("message") ?? "", ctx.caller.session.accountId);
    if (!sent) {
      throw new ApiError("webhook_not_found", "There is no such event to resend, or its endpoint is disabled.");
    }
    return redirect(`${WEBHOOKS_PAGE}?notice=resent`);
  });

  return [
    { method: "GET", path: WEBHOOKS_PAGE, handler: site.signedIn((ctx) => render(ctx, {})) },
    { method: "POST", path: WEBHOOKS_PAGE, handler: add },
    { method: "POST", path: `${WEBHOOKS_PAGE}/rotate`, handler: rotate },
    { method: "POST", path: `${WEBHOOKS_PAGE}/delete`, handler: remove },
    { method: "POST", path: `${WEBHOOKS_PAGE}/resend`, handler: resend },
  ];
}
