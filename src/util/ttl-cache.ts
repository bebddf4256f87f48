// A small in-memory cache with per-entry expiry and a size bound (least recently used goes first).

export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, ttlMs: number): void;
}

export function createTtlCache<V>(options: { maxEntries: number; now: () => number }): TtlCache<V> {
  // A Map iterates in insertion order, so re-inserting on every hit keeps the oldest use first.
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= options.now()) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, ttlMs) {
      if (ttlMs <= 0 || options.maxEntries <= 0) return;
      entries.delete(key);
      entries.set(key, { value, expiresAt: options.now() + ttlMs });
      while (entries.size > options.maxEntries) {
        entries.delete(entries.keys().next().value!);
      }
    },
  };
}
