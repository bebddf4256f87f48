// Work that holds a child process (a yt-dlp extraction, an ffmpeg download) or a relay is capped
// per key, per account and for the whole instance (docs/api.md, Limits). The caps are per
// instance, on what it runs; the daily quota is what several instances share.
//
// The rule, so that no account takes the service away from the others:
// - a key holds at most its tier's number of slots (FREE 1, PRO 3, GOLD 10 in page mode);
// - its account holds at most that many across all its keys, so ten FREE keys of one owner are
//   still one FREE download at a time;
// - the last quarter of the instance's slots (at least one) goes only to accounts that hold none:
//   one account fills at most the rest, however many keys and tiers it has.
import type { Config } from "../config.ts";
import { ApiError } from "../http/problem.ts";
import { Counts } from "../util/counts.ts";

/** How long a refused caller should wait; a short download takes about this long. */
const RETRY_AFTER_SEC = 10;

/** Who asks for a slot: a key of an account, with the key's tier. */
export interface SlotHolder {
  id: string;
  accountId: number;
  tier: string;
}

export interface Slots {
  /** Takes a slot or throws 429; call the returned function (once or more) to give it back. */
  acquire(holder: SlotHolder): () => void;
}

export interface SlotOptions {
  perTier: Readonly<Record<string, number>>;
  server: number;
  /** The 429's code, and what is counted, for its detail. */
  code: "too_many_downloads" | "too_many_extractions";
  what: string;
}

/** The free slots an account that already holds one may not take: a quarter of the instance's, at least one. */
export const keptForOthers = (server: number) => Math.max(1, Math.ceil(server / 4));

export function createSlots(options: SlotOptions): Slots {
  const byKey = new Counts<string>();
  const byAccount = new Counts<number>();
  let total = 0;
  const reserve = keptForOthers(options.server);
  /** Why `holder` may not take a slot now, or null when it may. */
  const refusal = (holder: SlotHolder): string | null => {
    const cap = options.perTier[holder.tier] ?? options.server;
    if (byKey.of(holder.id) >= cap) return `${cap} at a time for a ${holder.tier} key`;
    const accountHolds = byAccount.of(holder.accountId);
    if (accountHolds >= cap) return `${cap} at a time for an account using a ${holder.tier} key`;
    if (total >= options.server) return "this server's limit";
    if (accountHolds > 0 && options.server - total <= reserve) return "this server's last slots are kept for other accounts";
    return null;
  };
  return {
    acquire(holder) {
      const reason = refusal(holder);
      if (reason !== null) {
        throw new ApiError(options.code, `Too many ${options.what} at once (${reason}); retry in ${RETRY_AFTER_SEC} s.`, {
          headers: { "retry-after": String(RETRY_AFTER_SEC) },
        });
      }
      byKey.add(holder.id, 1);
      byAccount.add(holder.accountId, 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        byKey.add(holder.id, -1);
        byAccount.add(holder.accountId, -1);
      };
    },
  };
}

/** docs/api.md, Limits: FREE 1, PRO 3, GOLD 10 concurrent page-mode downloads per key and per account. */
export const slotsPerTier = { FREE: 1, PRO: 3, GOLD: 10 } as const;

/**
 * Concurrent direct-mode relays per key (and per account). A relay holds no child process, only two
 * sockets, so the caps are twice page mode's: enough for a player's parallel range requests, while
 * one key cannot hold hundreds of connections to a CDN.
 */
export const directSlotsPerTier = { FREE: 2, PRO: 6, GOLD: 20 } as const;

/** The caps on concurrent operations, from the configuration. */
export function operationSlots(config: Pick<Config, "MAX_PAGE_DOWNLOADS" | "MAX_DIRECT_DOWNLOADS">) {
  return {
    /** Page-mode downloads that copy streams (ffmpeg `-c copy`). */
    remuxes: createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_downloads", what: "page-mode downloads" }),
    /** Page-mode downloads that encode (MP3, or a codec MP4 cannot hold): real CPU. */
    encodes: createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_downloads", what: "page-mode downloads" }),
    directDownloads: createSlots({ perTier: directSlotsPerTier, server: config.MAX_DIRECT_DOWNLOADS, code: "too_many_downloads", what: "direct downloads" }),
    extractions: createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_extractions", what: "page look-ups" }),
  };
}
