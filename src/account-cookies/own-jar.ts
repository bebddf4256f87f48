// The calls of an account that brought its own cookies (ACCOUNT_COOKIES=on): its files stand in
// for the operator's jars on their platforms, and only for its calls. Each such account's calls go
// through parts of their own (readers, their caches, the relay), built over its cookies and kept
// a while: nothing one account's cookies read is kept where another account's call finds it. The
// files are looked up for every call, so an upload or a deletion counts from the next one.
import type { CookieSource, TakenCookies } from "../platforms/cookie-jars.ts";
import { cookiesForHosts } from "../platforms/cookie-jars.ts";
import type { Queryable } from "../store/db.ts";
import { createTtlCache } from "../util/ttl-cache.ts";
import { sealedCookiesOf } from "./store.ts";

export interface OwnJarOptions<Parts> {
  db: Queryable;
  /** The operator's jars: an account's calls still use them for the platforms it has no file of. */
  operator: CookieSource;
  platformOfHost: (hostname: string) => string | null;
  trafficHosts: (platform: string) => readonly string[];
  /** The parts a call reads and fetches through, built over `cookies`. */
  build: (cookies: CookieSource) => Parts;
  now: () => Date;
  /** Told when a platform refused an account's own cookies (its name, never its content). */
  onRefused?: (accountId: number, platform: string, reason: string) => void;
}

/** How long an account's parts are kept after their last use, and for how many accounts. */
const KEPT_MS = 10 * 60_000;
const KEPT_ACCOUNTS = 64;

/** The parts of `accountId`'s calls; null when it has no file (its calls take the shared parts). */
export type AccountParts<Parts> = (accountId: number) => Promise<Parts | null>;

export function ownJars<Parts>(options: OwnJarOptions<Parts>): AccountParts<Parts> {
  const kept = createTtlCache<{ version: string; parts: Parts }>({
    maxEntries: KEPT_ACCOUNTS,
    now: () => options.now().getTime(),
  });
  return async (accountId) => {
    const files = await sealedCookiesOf(options.db, accountId);
    if (files === null) return null;
    const key = String(accountId);
    const found = kept.get(key);
    if (found?.version === files.version) {
      kept.set(key, found, KEPT_MS);
      return found.parts;
    }
    const parts = options.build(accountCookies(options, accountId, await files.open()));
    kept.set(key, { version: files.version, parts }, KEPT_MS);
    return parts;
  };
}

/** An account's cookie source: its own file for the platforms it has one of, the operator's jars for the others. */
export function accountCookies(
  options: Pick<OwnJarOptions<unknown>, "operator" | "platformOfHost" | "trafficHosts" | "onRefused">,
  accountId: number,
  files: ReadonlyMap<string, Uint8Array>,
): CookieSource {
  return {
    async take(url): Promise<TakenCookies | null> {
      const platform = options.platformOfHost(url.hostname);
      const own = platform === null ? undefined : files.get(platform);
      // A platform it has a file of never falls back to the operator's jar.
      if (own === undefined) return options.operator.take(url);
      return {
        content: cookiesForHosts(own, options.trafficHosts(platform!)),
        account: `${platform}/own:${accountId}`,
        refused: (reason) => options.onRefused?.(accountId, platform!, reason),
      };
    },
  };
}
