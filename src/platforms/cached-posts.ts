// Posts of a platform the service reads itself (a platform module whose reader is the service's
// own: its APIs or its pages), kept a short while: a post for `cacheTtlMs`, one the platform does not show (a 404) for
// `notFoundTtlMs` (it may be shown again), and one read per burst of equal requests. Any other
// failure is told to that burst's callers and kept by none.
import { ApiError } from "../http/problem.ts";
import { sharedRuns } from "../util/shared-runs.ts";
import { createTtlCache } from "../util/ttl-cache.ts";

export interface CachedPostsOptions {
  cacheTtlMs: number;
  /** Default: cacheTtlMs. */
  notFoundTtlMs?: number;
  cacheMaxEntries: number;
  now?: () => number;
}

type Outcome<T> = { ok: true; post: T } | { ok: false; error: ApiError };

/** `read(key, load, uncached)`: the post kept under `key`, else what `load` gives (and keeps). */
export function cachedPosts<T>(
  options: CachedPostsOptions,
): (key: string, load: () => Promise<T>, uncached?: boolean) => Promise<T> {
  const cache = createTtlCache<Outcome<T>>({ maxEntries: options.cacheMaxEntries, now: options.now ?? Date.now });
  const shared = sharedRuns<Outcome<T>>();
  const settle = (load: () => Promise<T>): Promise<Outcome<T>> =>
    load().then(
      (post) => ({ ok: true, post }),
      (error: unknown) => {
        if (error instanceof ApiError) return { ok: false, error };
        throw error;
      },
    );
  return async (key, load, uncached = false) => {
    let outcome = uncached ? undefined : cache.get(key);
    outcome ??= await shared(key, async () => {
      const settled = await settle(load);
      if (settled.ok) cache.set(key, settled, options.cacheTtlMs);
      else if (settled.error.status === 404) cache.set(key, settled, options.notFoundTtlMs ?? options.cacheTtlMs);
      return settled;
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.post;
  };
}
