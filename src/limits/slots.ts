// Work that holds a child process (a yt-dlp extraction, an ffmpeg download) is capped per key and
// for the whole instance (docs/api.md, Limits). The caps are per instance, on what it runs; the
// daily quota is what several instances share.
import type { Config } from "../config.ts";
import { ApiError } from "../http/problem.ts";

/** How long a refused caller should wait; a short download takes about this long. */
const RETRY_AFTER_SEC = 10;

export interface Slots {
  /** Takes a slot or throws 429; call the returned function (once or more) to give it back. */
  acquire(keyId: string, tier: string): () => void;
}

export interface SlotOptions {
  perTier: Readonly<Record<string, number>>;
  server: number;
  /** The 429's code, and what is counted, for its detail. */
  code: string;
  what: string;
}

export function createSlots(options: SlotOptions): Slots {
  const byKey = new Map<string, number>();
  let total = 0;
  return {
    acquire(keyId, tier) {
      const held = byKey.get(keyId) ?? 0;
      const keyCap = options.perTier[tier] ?? options.server;
      if (held >= keyCap || total >= options.server) {
        const which = held >= keyCap ? `${keyCap} at a time for the ${tier} tier` : "this server's limit";
        throw new ApiError(429, options.code, `Too many ${options.what} at once (${which}); retry in ${RETRY_AFTER_SEC} s.`, {
          headers: { "retry-after": String(RETRY_AFTER_SEC) },
        });
      }
      byKey.set(keyId, held + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (byKey.get(keyId) ?? 1) - 1;
        if (left === 0) byKey.delete(keyId);
        else byKey.set(keyId, left);
      };
    },
  };
}

/** docs/api.md, Limits: FREE 1, PRO 3, GOLD 10 concurrent page-mode downloads per key. */
export const slotsPerTier = { FREE: 1, PRO: 3, GOLD: 10 } as const;

/**
 * Concurrent direct-mode relays per key. A relay holds no child process, only two sockets, so the
 * caps are twice page mode's: enough for a player's parallel range requests, while one key cannot
 * hold hundreds of connections to a CDN.
 */
export const directSlotsPerTier = { FREE: 2, PRO: 6, GOLD: 20 } as const;

/** The caps on concurrent operations, from the configuration. */
export function operationSlots(config: Pick<Config, "MAX_PAGE_DOWNLOADS" | "MAX_DIRECT_DOWNLOADS">) {
  return {
    downloads: createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_downloads", what: "page-mode downloads" }),
    directDownloads: createSlots({ perTier: directSlotsPerTier, server: config.MAX_DIRECT_DOWNLOADS, code: "too_many_downloads", what: "direct downloads" }),
    extractions: createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_extractions", what: "page look-ups" }),
  };
}
