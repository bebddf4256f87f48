// The cobalt door: cobalt's API (imputnet/cobalt 11) on an origin of its own (COBALT_PORT), so that
// cobalt's web app, which keeps only an instance's origin and calls `GET /`, `POST /` and
// `POST /session` at its root, and the clients around its API work unchanged over our keys, tiers and
// platforms. It holds no operation of its own: `POST /` is the API's `post` and a tunnel the API's
// `download`, asked in-process (post.ts, tunnel.ts), so they are admitted, counted and limited once,
// as every call is.
import type { Arrival, Reply, Served } from "../runtime/serve.ts";
import type { TrustedProxies } from "../http/client-address.ts";
import { corsHeaders } from "../http/cors.ts";
import type { Tier } from "../store/api-keys.ts";
import { json } from "../http/json-response.ts";
import type { Logger } from "../log.ts";
import { withFields } from "../log.ts";
import { cobaltError } from "./errors.ts";
import { keylessKeys } from "./keyless.ts";
import { postDoor } from "./post.ts";
import { serviceNames } from "./services.ts";
import { downloadOf, TUNNEL_PATH, tunnelRefusal, type TunnelSettings } from "./tunnel.ts";

export interface DoorDeps {
  /** The app, which the door asks in-process. */
  api: Served;
  db: TunnelSettings["db"];
  config: {
    COBALT_PUBLIC_URL?: string;
    COBALT_KEYLESS_TIER?: Tier;
    TRUST_PROXY: TrustedProxies;
    LINK_TTL_S: number;
    CORS_ORIGIN: string;
  };
  log: Logger;
  /** When the service started: cobalt's `startTime`. */
  startedAt: Date;
  now?: () => Date;
}

/** The version of cobalt's API the door answers as (clients and trackers show it). */
const COBALT_VERSION = "11.7";

/** What `GET /` says: cobalt's shape, without `turnstileSitekey` (its presence makes clients solve a captcha). */
function serverInfo(deps: DoorDeps, origin: string) {
  return {
    cobalt: {
      version: COBALT_VERSION,
      url: `${origin}/`,
      startTime: String(deps.startedAt.getTime()),
      services: serviceNames(),
    },
    // Trackers read the first 6 characters of the commit; another remote than cobalt's marks a fork, as this is.
    git: { commit: "unknown", branch: "media-api", remote: "media-api" },
  };
}

/** The headers a tunnel's answer carries for cobalt's clients: a file they may embed from another origin. */
function asTunnelAnswer(response: Response, method: string): Response {
  response.headers.set("cross-origin-resource-policy", "cross-origin");
  if (method !== "HEAD" || response.headers.has("content-length")) return response;
  // A tracker counts `Content-Length: 0` on HEAD as a broken tunnel, and a server that is handed no body
  // says just that (Deno's does): an empty stream claims no length.
  const empty = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return new Response(empty, { status: response.status, headers: response.headers });
}

export function createCobaltDoor(deps: DoorDeps): Served {
  const now = deps.now ?? (() => new Date());
  const cors = Object.entries(corsHeaders(deps.config.CORS_ORIGIN));
  const base = (request: Request) => (deps.config.COBALT_PUBLIC_URL ?? new URL(request.url).origin).replace(/\/+$/, "");
  const tier = deps.config.COBALT_KEYLESS_TIER;
  const trusted = deps.config.TRUST_PROXY;
  const keyless = tier === undefined ? null : keylessKeys({ db: deps.db, tier });
  const tunnels = (request: Request): TunnelSettings => ({
    db: deps.db,
    base: base(request),
    ttlS: deps.config.LINK_TTL_S,
  });

  async function tunnel(request: Request, arrival: Arrival): Promise<Reply> {
    const { download, probe } = downloadOf(new URL(request.url));
    const refusal = await tunnelRefusal(deps.db, download, now());
    if (refusal !== null || probe) return plain(new Response(null, { status: refusal ?? 200 }));
    const headers = new Headers();
    for (const name of ["range", "if-range", "x-forwarded-for", "user-agent"]) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const inner = new Request(download, { method: request.method, headers, signal: request.signal });
    const reply = await deps.api.answer(inner, arrival);
    return { ...reply, response: asTunnelAnswer(reply.response, request.method) };
  }

  async function route(request: Request, arrival: Arrival): Promise<Reply> {
    const { pathname } = new URL(request.url);
    const read = request.method === "GET" || request.method === "HEAD";
    if (request.method === "OPTIONS") return plain(preflight(deps.config.CORS_ORIGIN, request));
    if (read && (pathname === "/" || pathname === "/api/serverInfo")) {
      const info = json(serverInfo(deps, base(request)));
      return plain(request.method === "HEAD" ? withoutBody(info) : info);
    }
    if (read && pathname === TUNNEL_PATH) return tunnel(request, arrival);
    if (request.method === "POST" && pathname === "/") {
      const post = { api: deps.api, tunnels: tunnels(request), now, keyless, trusted };
      return plain(await postDoor(post, request, arrival));
    }
    if (request.method === "POST" && pathname === "/session") return plain(cobaltError("auth.not_configured"));
    if (read && pathname === "/favicon.ico") return plain(new Response(null, { status: 404 }));
    // cobalt sends every other path to its root.
    if (read) return plain(new Response(null, { status: 302, headers: { location: "/" } }));
    return plain(cobaltError("generic"));
  }

  return {
    async answer(request, arrival) {
      const log = withFields(deps.log, { requestId: arrival.requestId });
      let reply: Reply;
      try {
        reply = await route(request, arrival);
      } catch (error) {
        log.error("the cobalt door failed", { error: String(error) });
        reply = plain(
          new Response(JSON.stringify({ status: "error", error: { code: "error.api.generic" } }), {
            status: 500,
            headers: { "content-type": "application/json; charset=utf-8" },
          }),
        );
      }
      for (const [name, value] of cors) reply.response.headers.set(name, value);
      reply.response.headers.set("x-request-id", arrival.requestId);
      log.info("cobalt request", {
        method: request.method,
        path: new URL(request.url).pathname,
        status: reply.response.status,
      });
      return reply;
    },
    refuse: (error, requestId) => {
      deps.log.warn("the cobalt door refused a request", { requestId, error: String(error) });
      return cobaltError("generic");
    },
  };
}

function plain(response: Response): Reply {
  return { response, done: () => {} };
}

function withoutBody(response: Response): Response {
  void response.body?.cancel();
  return new Response(null, { status: response.status, headers: response.headers });
}

/** cobalt's clients call from its web app's origin with `Content-Type: application/json` and `Authorization`. */
function preflight(allowOrigin: string, request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-methods": "GET, HEAD, POST, OPTIONS",
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ??
        "Accept, Authorization, Content-Type, Range",
      "access-control-max-age": "86400",
      ...(allowOrigin === "*" ? {} : { vary: "Origin" }),
    },
  });
}
