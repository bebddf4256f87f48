// Which proxy a connection leaves through: the proxies of the platform whose host it goes to
// (OUTBOUND_PROXY_<PLATFORM>, a list taken in turn), else OUTBOUND_PROXY, else none. A proxy of a
// platform's list that fails to open a connection is set aside for a while, so that one dead
// proxy does not fail every call; a platform's proxy carries its hosts only. Every connection is
// still checked by the egress policy before any proxy sees it (egress-gate.ts, the outbound client).
import { connectFailureOf } from "../util/connect-failure.ts";
import { authority, type OutboundProxy } from "./outbound-proxy.ts";
import type { UpstreamClient } from "./relay-upstream.ts";

/** Picks proxies for one run (a gate session, one relayed file): a platform's proxy stays the same within it. */
export type ProxyPicker = (host: string) => OutboundProxy | null;

export interface OutboundRoutes {
  /** A picker for one run: the first connection to a platform's host takes that platform's next proxy. */
  run(): ProxyPicker;
  /** A connection through `proxy` could not be opened (`why`: "connection refused"): a proxy of a platform's list is set aside. */
  failed(proxy: OutboundProxy, why: string): void;
  /** A connection through `proxy` was opened: it answered. */
  answered(proxy: OutboundProxy): void;
  /** Whether any connection may leave through a proxy (the runtime's proxied clients are built then). */
  any: boolean;
  /**
   * Each platform's proxies as `host:port` (never credentials), and OUTBOUND_PROXY as the platform `*`: until when
   * one is set aside and why, and what was last heard of it.
   */
  listing(): { platform: string; proxies: ProxyState[] }[];
}

/** A proxy as the platform check shows it. */
export interface ProxyState {
  proxy: string;
  setAsideUntil: string | null;
  /** Why its last connection failed ("connection refused"); null when it has not failed or answered since. */
  reason: string | null;
  /** The last connection through it: when, and whether it opened; null before the first. */
  lastHeard: { at: string; answered: boolean } | null;
}

export interface OutboundRoutesOptions {
  /** OUTBOUND_PROXY; null without one. */
  fallback: OutboundProxy | null;
  /** OUTBOUND_PROXY_<PLATFORM>, by platform id. */
  platforms: ReadonlyMap<string, readonly OutboundProxy[]>;
  platformOfHost: (hostname: string) => string | null;
  setAsideMs: number;
  now: () => Date;
  onSetAside: (platform: string, proxy: string, until: Date) => void;
}

/** A proxy's name in the log, the metrics and the listing: never its credentials. */
export const proxyName = (proxy: OutboundProxy) => authority(proxy.host, proxy.port);

export function createOutboundRoutes(options: OutboundRoutesOptions): OutboundRoutes {
  const turns = new Map<string, number>();
  const aside = new Map<OutboundProxy, number>();
  const owner = new Map<OutboundProxy, string>();
  for (const [platform, list] of options.platforms) for (const proxy of list) owner.set(proxy, platform);
  const isAside = (proxy: OutboundProxy) => (aside.get(proxy) ?? 0) > options.now().getTime();
  const heard = new Map<OutboundProxy, { at: number; why: string | null }>();
  const stateOf = (proxy: OutboundProxy): ProxyState => {
    const last = heard.get(proxy);
    return {
      proxy: proxyName(proxy),
      setAsideUntil: isAside(proxy) ? new Date(aside.get(proxy)!).toISOString() : null,
      reason: last?.why ?? null,
      lastHeard: last === undefined ? null : { at: new Date(last.at).toISOString(), answered: last.why === null },
    };
  };

  /** The platform's next proxy in turn, skipping those set aside; all set aside: the least recently failed. */
  function next(platform: string, list: readonly OutboundProxy[]): OutboundProxy {
    const turn = turns.get(platform) ?? 0;
    turns.set(platform, turn + 1);
    const ready = list.filter((proxy) => !isAside(proxy));
    if (ready.length > 0) return ready[turn % ready.length]!;
    return [...list].sort((a, b) => aside.get(a)! - aside.get(b)!)[0]!;
  }

  return {
    any: options.fallback !== null || options.platforms.size > 0,
    run() {
      const chosen = new Map<string, OutboundProxy>();
      return (host) => {
        const platform = options.platformOfHost(host);
        const list = platform === null ? undefined : options.platforms.get(platform);
        if (platform === null || list === undefined) return options.fallback;
        const proxy = chosen.get(platform) ?? next(platform, list);
        chosen.set(platform, proxy);
        return proxy;
      };
    },
    failed(proxy, why) {
      heard.set(proxy, { at: options.now().getTime(), why });
      const platform = owner.get(proxy);
      if (platform === undefined) return;
      const until = new Date(options.now().getTime() + options.setAsideMs);
      aside.set(proxy, until.getTime());
      options.onSetAside(platform, proxyName(proxy), until);
    },
    answered(proxy) {
      heard.set(proxy, { at: options.now().getTime(), why: null });
    },
    listing: () => [
      ...[...options.platforms].map(([platform, list]) => ({ platform, proxies: list.map(stateOf) })),
      ...(options.fallback === null ? [] : [{ platform: "*", proxies: [stateOf(options.fallback)] }]),
    ],
  };
}

/**
 * The relay's and the readers' HTTP client over `routes`: each request through the proxy of its URL's host (the
 * runtime's proxied client, one per proxy), or `direct`; a proxy that could not be reached is set aside.
 */
export function routedUpstream(
  routes: OutboundRoutes,
  direct: UpstreamClient,
  proxied: (proxy: OutboundProxy) => UpstreamClient,
): UpstreamClient {
  if (!routes.any) return direct;
  const clients = new Map<OutboundProxy, UpstreamClient>();
  return async (request) => {
    const proxy = routes.run()(request.url.hostname);
    if (proxy === null) return direct(request);
    const client = clients.get(proxy) ?? proxied(proxy);
    clients.set(proxy, client);
    try {
      const answer = await client(request);
      routes.answered(proxy);
      return answer;
    } catch (error) {
      const why = connectFailureOf(error);
      if (why !== null && !request.signal.aborted) routes.failed(proxy, why);
      throw error;
    }
  };
}
