// Work that holds a child process (a yt-dlp extraction, an ffmpeg download) or a relay is capped
// per key, per account, per client address, per tier and for the whole instance (docs/security.md,
// Connections and fair shares). The caps are per instance, on what it runs; the daily quota is what
// several instances share.
//
// The rule, so that no account and no crowd of accounts takes the service away from the others:
// - a key holds at most its tier's number of slots (FREE 1, PRO 3, GOLD 10 in page mode);
// - its account holds at most that many across all its keys, so ten FREE keys of one owner are
//   still one FREE download at a time;
// - the accounts of one client address (an IPv4 address or an IPv6 /64) share that one fair share,
//   so ten FREE accounts signed up from one address are still one FREE download at a time;
// - the keys of a tier and the tiers below it hold at most their part of the instance (FREE half,
//   FREE and PRO three quarters), so a paying key inside its caps finds a slot however many
//   cheaper accounts hold theirs;
// - the last quarter of the instance's slots (at least one) goes only to an account and an address
//   that hold none: one account fills at most the rest, however many keys and tiers it has.
import type { ApiContext } from "../auth/api-context.ts";
import { ApiError } from "../http/problem.ts";
import { Counts } from "../util/counts.ts";

/** How long a refused caller should wait; a short download takes about this long. */
const RETRY_AFTER_SEC = 10;

/** Who asks for a slot: a key of an account, with the key's tier, from a client address. */
export interface SlotHolder {
  id: string;
  accountId: number;
  tier: string;
  /** The client (clientGroup of its address) the request came from; unset: the account is its own client. */
  client?: string | undefined;
}

export interface Slots {
  /** Takes a slot or throws 429; call the returned function (once or more) to give it back. */
  acquire(holder: SlotHolder): () => void;
}

export type SlotKind = "extractions" | "remuxes" | "encodes" | "directDownloads";

export interface SlotOptions {
  perTier: Readonly<Record<string, number>>;
  server: number;
  /** The 429's code, and what is counted, for its detail. */
  code: "too_many_downloads" | "too_many_extractions";
  what: string;
  /** Told the number of slots held after each change. */
  onHeld?: (held: number) => void;
  /** Told each time a slot is taken. */
  onTaken?: () => void;
}

/** The holder of a request's slots: its key, and the client it came from. */
export const slotHolder = (ctx: Pick<ApiContext, "caller" | "client">): SlotHolder => ({
  id: ctx.caller.key.id,
  accountId: ctx.caller.key.accountId,
  tier: ctx.caller.key.tier,
  client: ctx.client,
});

/** The free slots an account that already holds one may not take: a quarter of the instance's, at least one. */
export const keptForOthers = (server: number) => Math.max(1, Math.ceil(server / 4));

/** The tiers from the cheapest up, and the part of the instance the keys of a tier and those below it may hold. */
const tierParts: readonly (readonly [tier: string, part: number])[] = [
  ["FREE", 1 / 2],
  ["PRO", 3 / 4],
];

/** The most slots the keys of `tier` and the tiers below it hold together (at least one), and those tiers. */
export function tierShare(tier: string, server: number): { most: number; tiers: string[] } {
  const index = tierParts.findIndex(([name]) => name === tier);
  if (index === -1) return { most: server, tiers: [] };
  return {
    most: Math.max(1, Math.floor(server * tierParts[index]![1])),
    tiers: tierParts.slice(0, index + 1).map(([name]) => name),
  };
}

export function createSlots(options: SlotOptions): Slots {
  const byKey = new Counts<string>();
  const byAccount = new Counts<number>();
  const byClient = new Counts<string>();
  const byTier = new Counts<string>();
  let total = 0;
  const reserve = keptForOthers(options.server);
  const clientOf = (holder: SlotHolder) => holder.client ?? `account ${holder.accountId}`;
  /** Why `holder` may not take a slot now, or null when it may. */
  const refusal = (holder: SlotHolder): string | null => {
    const cap = options.perTier[holder.tier] ?? options.server;
    if (byKey.of(holder.id) >= cap) return `${cap} at a time for a ${holder.tier} key`;
    const accountHolds = byAccount.of(holder.accountId);
    if (accountHolds >= cap) return `${cap} at a time for an account using a ${holder.tier} key`;
    const clientHolds = byClient.of(clientOf(holder));
    if (clientHolds >= cap) return `${cap} at a time for the accounts of one client address using a ${holder.tier} key`;
    if (total >= options.server) return "this server's limit";
    const share = tierShare(holder.tier, options.server);
    if (share.tiers.reduce((sum, tier) => sum + byTier.of(tier), 0) >= share.most) {
      return `this server's part for ${share.tiers.join(" and ")} keys is taken`;
    }
    if ((accountHolds > 0 || clientHolds > 0) && options.server - total <= reserve) {
      return "this server's last slots are kept for other accounts";
    }
    return null;
  };
  const count = (holder: SlotHolder, change: 1 | -1) => {
    byKey.add(holder.id, change);
    byAccount.add(holder.accountId, change);
    byClient.add(clientOf(holder), change);
    byTier.add(holder.tier, change);
    total += change;
    options.onHeld?.(total);
  };
  return {
    acquire(holder) {
      const reason = refusal(holder);
      if (reason !== null) {
        throw new ApiError(
          options.code,
          `Too many ${options.what} at once (${reason}); retry in ${RETRY_AFTER_SEC} s.`,
          {
            headers: { "retry-after": String(RETRY_AFTER_SEC) },
          },
        );
      }
      count(holder, 1);
      options.onTaken?.();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        count(holder, -1);
      };
    },
  };
}

/** docs/api.md, Limits: FREE 1, PRO 3, GOLD 10 concurrent page-mode downloads (and look-ups) per key and per account. */
export const slotsPerTier = { FREE: 1, PRO: 3, GOLD: 10 } as const;

/**
 * Concurrent direct-mode relays per key (and per account). A relay holds no child process, only two
 * sockets, so the caps are twice page mode's: enough for a player's parallel range requests, while
 * one key cannot hold hundreds of connections to a CDN.
 */
export const directSlotsPerTier = { FREE: 2, PRO: 6, GOLD: 20 } as const;

/** The settings of the same names (config.ts), which sit a floor above. */
interface SlotCaps {
  MAX_EXTRACTIONS: number;
  MAX_REMUXES: number;
  MAX_ENCODES: number;
  MAX_DIRECT_DOWNLOADS: number;
}

/** Who is told how the slots of each kind move (the service's metrics). */
export interface SlotWatch {
  /** Each kind's count as it moves, and once at the start. */
  slotsHeld(kind: SlotKind, held: number, limit: number): void;
  /** Each slot as it is taken. */
  slotTaken(kind: SlotKind): void;
}

/** The caps on concurrent operations, from the configuration, told to `watch` as they move. */
export function operationSlots(config: SlotCaps, watch?: SlotWatch): Record<SlotKind, Slots> {
  const slots = (
    kind: SlotKind,
    server: number,
    perTier: Readonly<Record<string, number>>,
    code: SlotOptions["code"],
    what: string,
  ) => {
    watch?.slotsHeld(kind, 0, server);
    return createSlots({
      perTier,
      server,
      code,
      what,
      onHeld: watch && ((held) => watch.slotsHeld(kind, held, server)),
      onTaken: watch && (() => watch.slotTaken(kind)),
    });
  };
  return {
    extractions: slots("extractions", config.MAX_EXTRACTIONS, slotsPerTier, "too_many_extractions", "page look-ups"),
    /** Page-mode downloads that copy streams (ffmpeg `-c copy`). */
    remuxes: slots("remuxes", config.MAX_REMUXES, slotsPerTier, "too_many_downloads", "page-mode downloads"),
    /** Page-mode downloads that encode (MP3, or a codec MP4 cannot hold): real CPU. */
    encodes: slots("encodes", config.MAX_ENCODES, slotsPerTier, "too_many_downloads", "page-mode conversions (MP3)"),
    directDownloads: slots(
      "directDownloads",
      config.MAX_DIRECT_DOWNLOADS,
      directSlotsPerTier,
      "too_many_downloads",
      "direct downloads",
    ),
  };
}
