// The watches' routes (docs/api.md, Watches): an owner watches a link (a channel, a playlist, a
// profile) on a repeat, lists, shows, pauses, resumes and deletes watches. A watch is its
// account's alone: another account's id is 404, as an id that never was.
import { requireJobEndpoint } from "../webhooks/endpoints.ts";
import type { ApiContext, ApiHandler } from "../auth/api-context.ts";
import { readJsonBody } from "../http/json-body.ts";
import { json } from "../http/json-response.ts";
import { ApiError } from "../http/problem.ts";
import type { Watches } from "./runner.ts";
import { WatchBody, watchRequestOf } from "./request.ts";
import { createWatch, deleteWatch, pauseWatch, watchesOf, watchOf } from "./store.ts";
import { WatchList, WatchRecord, watchRecord } from "./view.ts";
import { jsonAnswer } from "../http/openapi-parts.ts";
import { idParamOf, ownedResourceRoutes } from "../http/owned-resource.ts";
import type { RouteDeclaration } from "../http/route.ts";
import { OWNER_PAUSE } from "./watch.ts";
import type { Db } from "../store/db.ts";
import { requirePlatform, type SupportedSites } from "../operations/ask.ts";

export interface WatchesDeps extends SupportedSites {
  db: Db;
  /** Absent where no queue runs (an app built without one): creating and resuming answer 503. */
  watches?: Watches | null | undefined;
  /** The shortest period a watch may have, in seconds (WATCH_MIN_EVERY_S). */
  config: { WATCH_MIN_EVERY_S: number };
}

export const WATCHES_PATH = "/api/v1/watches";

/** "A few per account": each looks at its link every period, on the service's own extractions. */
export const MAX_WATCHES_PER_ACCOUNT = 50;

/**
 * The most watches a key of each tier holds (a tier not listed gets FREE's): each run is one call
 * of the key, and a FREE key's 5 looking every 15 minutes already pass its day of 100.
 */
export const WATCHES_PER_KEY: Readonly<Record<string, number>> = { FREE: 5, PRO: 25, GOLD: 50 };

const watchesPerKeyOf = (tier: string): number => WATCHES_PER_KEY[tier] ?? WATCHES_PER_KEY.FREE!;

export const noSuchWatch = () => new ApiError("not_found", "This account has no watch with this id.");

function runsOf(deps: WatchesDeps): Watches {
  if (!deps.watches) throw new ApiError("busy", "This instance runs no job queue; try again later.");
  return deps.watches;
}

/** The watch id the path names (an id of no watch's form is none). */
const idOf = (ctx: ApiContext) => ctx.params.id ?? "";

/** POST /api/v1/watches: 201 with the watch; its first run, at once, records what the link holds now. */
function createWatchHandler(deps: WatchesDeps): ApiHandler {
  return async (ctx) => {
    const runs = runsOf(deps);
    const body = await readJsonBody(ctx.request, WatchBody, {
      maxBytes: 16 * 1024,
      example: '{"url": "<a channel, playlist or profile link>", "every": "6h"}',
    });
    const request = watchRequestOf(body, deps.config.WATCH_MIN_EVERY_S, ctx.now);
    request.job.linkBase = new URL(ctx.request.url).origin;
    await requirePlatform(request.url, deps);
    if (request.job.webhook) {
      request.job.webhook = await requireJobEndpoint(deps.db, request.job.webhook, ctx.caller.key.accountId);
    }
    const watch = await createWatch(deps.db, {
      id: crypto.randomUUID(),
      accountId: ctx.caller.key.accountId,
      apiKeyId: ctx.caller.key.id,
      request,
      now: ctx.now,
      max: { account: MAX_WATCHES_PER_ACCOUNT, key: watchesPerKeyOf(ctx.caller.key.tier) },
    });
    if (watch === null) {
      throw new ApiError(
        "watches_full",
        `A ${ctx.caller.key.tier} key holds at most ${
          watchesPerKeyOf(ctx.caller.key.tier)
        } watches, and an account at most ${MAX_WATCHES_PER_ACCOUNT}; this one is full: delete a watch first.`,
      );
    }
    await runs.queueRun(watch.id, watch.nextRunAt);
    return json(watchRecord(watch), { status: 201, headers: { location: `${WATCHES_PATH}/${watch.id}` } });
  };
}

/** GET /api/v1/watches: the account's watches, newest first. */
function listWatchesHandler(deps: WatchesDeps): ApiHandler {
  return async (ctx) => json({ watches: (await watchesOf(deps.db, ctx.caller.key.accountId)).map(watchRecord) });
}

/** GET /api/v1/watches/{id}. */
function watchHandler(deps: WatchesDeps): ApiHandler {
  return async (ctx) => {
    const watch = await watchOf(deps.db, idOf(ctx), ctx.caller.key.accountId);
    if (watch === null) throw noSuchWatch();
    return json(watchRecord(watch));
  };
}

/** DELETE /api/v1/watches/{id}: 204; the jobs its runs made stay. */
function deleteWatchHandler(deps: WatchesDeps): ApiHandler {
  return async (ctx) => {
    if (!(await deleteWatch(deps.db, idOf(ctx), ctx.caller.key.accountId))) throw noSuchWatch();
    return new Response(null, { status: 204 });
  };
}

/** POST /api/v1/watches/{id}/pause: no run starts until it is resumed. */
function pauseWatchHandler(deps: WatchesDeps): ApiHandler {
  return async (ctx) => {
    const id = idOf(ctx);
    const watch = await pauseWatch(deps.db, {
      id,
      accountId: ctx.caller.key.accountId,
      reason: OWNER_PAUSE,
      now: ctx.now,
    });
    if (watch === null) throw noSuchWatch();
    return json(watchRecord(watch));
  };
}

/** POST /api/v1/watches/{id}/resume: runs again, at once when a run fell due while it was paused. */
function resumeWatchHandler(deps: WatchesDeps): ApiHandler {
  return async (ctx) => {
    const watch = await runsOf(deps).resume({ id: idOf(ctx), accountId: ctx.caller.key.accountId, now: ctx.now });
    if (watch === null) throw noSuchWatch();
    return json(watchRecord(watch));
  };
}

/** The schemas the routes name, for the document's components. */
export const watchSchemas = { Watch: WatchRecord, WatchList } as const;

const change = (action: string, operationId: string, summary: string, description: string) => ({
  method: "POST" as const,
  path: `${WATCHES_PATH}/{id}/${action}`,
  params: idParamOf("watch", WATCHES_PATH),
  operationId,
  summary,
  description,
  answers: jsonAnswer(200, "Watch", "The watch as it is now"),
  errors: ["not_found", "busy"] as const,
});

export const watchRoutes: RouteDeclaration<WatchesDeps, ApiHandler>[] = [
  ...ownedResourceRoutes<WatchesDeps, ApiHandler>({
    collection: WATCHES_PATH,
    thing: "watch",
    notFound: "not_found",
    create: {
      operationId: "createWatch",
      summary: "Watch a channel, playlist or profile: each run reports the posts not seen before as watch.found",
      description:
        "The first run, at once, records the posts the link holds and reports none; each later run makes a job of the posts it had not seen (each item one counted call of the key) and, when that job ends, tells `watch.found` with their records to the watch's webhook or the account's endpoints that take the event.",
      body: WatchBody,
      component: "Watch",
      answer: "The watch",
      codes: ["invalid_request", "unsupported_platform", "watches_full", "busy"],
      handler: createWatchHandler,
    },
    list: {
      operationId: "listWatches",
      summary: "The account's watches, newest first",
      component: "WatchList",
      answer: "The account's watches",
      handler: listWatchesHandler,
    },
    get: {
      operationId: "getWatch",
      summary: "A watch",
      description: "Another account's watch is 404.",
      component: "Watch",
      answer: "The watch",
      handler: watchHandler,
    },
    remove: {
      operationId: "deleteWatch",
      summary: "Delete a watch; the jobs its runs made stay",
      handler: deleteWatchHandler,
    },
  }),
  {
    ...change("pause", "pauseWatch", "Pause a watch", "No run starts until it is resumed."),
    handler: pauseWatchHandler,
  },
  {
    ...change(
      "resume",
      "resumeWatch",
      "Resume a paused watch",
      "It runs at once when a run fell due while it was paused, else when the next is due. A watch paused for its key pauses again at its next run while the key is passive or expired.",
    ),
    handler: resumeWatchHandler,
  },
];
