// Caps on the client connections a server holds open, in all and per client, the bound on the
// time to a complete request head, and on how slowly a request body may arrive. Every open connection holds a file descriptor; without a
// cap, idle connections from one address took the process to its descriptor limit, and then every
// request (health checks included) was refused. The cap stays well below that limit, so the store,
// the children's pipes, the egress gate and the relays' upstream sockets keep their room.
import { readFileSync } from "node:fs";
import { clientGroup, isTrustedProxy } from "../http/client-address.ts";
import type { Logger } from "../log.ts";
import type { Config } from "../config.ts";
import type { ConnectionLimits } from "./serve.ts";

export type { ConnectionLimits };

/** Without a readable open-file limit (not Linux), as if it were a common default of 1024. */
const ASSUMED_FILE_LIMIT = 1024;
/** More idle connections than this cost memory for nothing on a small server. */
const MOST_CONNECTIONS = 4096;

/** The limits from the configuration; MAX_CONNECTIONS unset is half the open-file limit, at most 4096. */
export function connectionLimits(
  config: Pick<
    Config,
    | "REQUEST_HEAD_TIMEOUT_S"
    | "REQUEST_BODY_GRACE_S"
    | "REQUEST_BODY_MIN_RATE"
    | "MAX_CONNECTIONS"
    | "MAX_CONNECTIONS_PER_CLIENT"
    | "TRUST_PROXY"
  >,
  fileLimit: number | null = openFileLimit(),
): ConnectionLimits {
  const maxConnections = config.MAX_CONNECTIONS ??
    Math.min(MOST_CONNECTIONS, Math.floor((fileLimit ?? ASSUMED_FILE_LIMIT) / 2));
  return {
    headTimeoutMs: config.REQUEST_HEAD_TIMEOUT_S * 1000,
    maxConnections,
    maxPerClient: Math.min(config.MAX_CONNECTIONS_PER_CLIENT, maxConnections),
    trustedProxies: config.TRUST_PROXY,
    bodyGraceMs: config.REQUEST_BODY_GRACE_S * 1000,
    bodyMinRate: config.REQUEST_BODY_MIN_RATE,
  };
}

/**
 * The process's soft limit on open files, from /proc/self/limits (Linux; Node and Bun raise it to
 * the hard limit as they start); null when it cannot be read. Infinity when unlimited.
 */
export function openFileLimit(read: () => string = () => readFileSync("/proc/self/limits", "utf8")): number | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === "unlimited") return Infinity;
  return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : null;
}

/** What the caps may ask of an open connection, as its adapter sees it. */
export interface HeldConnection {
  /** True while a request of it has fully arrived and its response is not yet sent: the app is working for it. */
  answering(): boolean;
  /** The body of its request that is still arriving: when it began and how many bytes came since; null when none is. */
  bodyArriving(): { startedAt: number; received: number } | null;
  close(): void;
}

export interface ConnectionCounter {
  /**
   * Counts a new connection from `peer`; the function to call once it closes, or null when it must
   * be closed now. At the cap, it takes the place of one still sending its request (or waiting for
   * its next) from the client that holds the most, when that client holds at least two more than
   * this one's: so a crowd of slow senders cannot keep a new client out, and cannot push out each other.
   */
  admit(peer: string | undefined, held?: HeldConnection): (() => void) | null;
  /** Closes the connections whose request body arrives slower than the limits allow (bodyTooSlow). */
  sweep(): void;
  readonly open: number;
}

/**
 * mod_reqtimeout's rule: a body may take `bodyGraceMs`, and after that must have come at
 * `bodyMinRate` bytes a second on average over the time past the grace.
 */
export function bodyTooSlow(
  body: { startedAt: number; received: number },
  now: number,
  limits: Pick<ConnectionLimits, "bodyGraceMs" | "bodyMinRate">,
): boolean {
  const late = now - body.startedAt - limits.bodyGraceMs;
  return late > 0 && body.received < (limits.bodyMinRate * late) / 1000;
}

/** One admitted connection, in its client's set. */
interface Entry {
  client: string | null;
  held: HeldConnection | undefined;
  closed: boolean;
}

/**
 * Counts open connections against the caps. Refusals, sheddings and slow bodies are each logged at
 * most once a minute, with how many there were.
 */
export function connectionCounter(
  limits: ConnectionLimits,
  log: Logger,
  now: () => number = Date.now,
): ConnectionCounter {
  const byClient = new Map<string, Set<Entry>>();
  const entries = new Set<Entry>();
  const heldBy = (client: string | null) => (client === null ? 0 : (byClient.get(client)?.size ?? 0));
  const report = throttledReport(log, now);
  let open = 0;
  const forget = (entry: Entry) => {
    if (entry.closed) return;
    entry.closed = true;
    open -= 1;
    entries.delete(entry);
    const mine = entry.client === null ? undefined : byClient.get(entry.client);
    mine?.delete(entry);
    if (mine?.size === 0) byClient.delete(entry.client!);
  };
  // Counted out at once: its adapter may tell of the close a moment later (Bun does).
  const drop = (entry: Entry) => {
    forget(entry);
    entry.held!.close();
  };
  /** A connection not being answered, of the client holding the most, if that client holds at least `least`. */
  const sheddable = (least: number): Entry | undefined => {
    const clients = [...byClient.values()].filter((held) => held.size >= least).sort((a, b) => b.size - a.size);
    for (const held of clients) for (const entry of held) if (entry.held && !entry.held.answering()) return entry;
    return undefined;
  };
  const refuse = (client: string | null) => {
    const context = {
      open,
      maxConnections: limits.maxConnections,
      ...(client === null ? {} : { client, maxPerClient: limits.maxPerClient }),
    };
    report("refused", "connections refused: a connection cap is reached", context);
    return null;
  };
  return {
    admit(peer, held) {
      // A Unix socket has no peer address; a trusted proxy carries many clients.
      const client = peer === undefined || isTrustedProxy(peer, limits.trustedProxies) ? null : clientGroup(peer);
      if (client !== null && heldBy(client) >= limits.maxPerClient) return refuse(client);
      if (open >= limits.maxConnections) {
        const victim = sheddable(heldBy(client) + 2);
        if (victim === undefined) return refuse(null);
        report(
          "shed",
          "connections shed at the cap: the oldest still sending its request, of the client holding the most",
          { client: victim.client, maxConnections: limits.maxConnections },
        );
        drop(victim);
      }
      const entry: Entry = { client, held, closed: false };
      open += 1;
      entries.add(entry);
      if (client !== null) byClient.set(client, (byClient.get(client) ?? new Set()).add(entry));
      return () => forget(entry);
    },
    sweep() {
      for (const entry of entries) {
        const body = entry.held?.bodyArriving() ?? null;
        if (body === null || !bodyTooSlow(body, now(), limits)) continue;
        report("closed", "connections closed: a request body arrived too slowly", {
          client: entry.client,
          bodyGraceMs: limits.bodyGraceMs,
          bodyMinRate: limits.bodyMinRate,
        });
        drop(entry);
      }
    },
    get open() {
      return open;
    },
  };
}

/** A warning per message at most once a minute, saying how many times it happened since the last. */
function throttledReport(
  log: Logger,
  now: () => number,
): (counted: string, message: string, context: Record<string, unknown>) => void {
  const pending = new Map<string, { count: number; reportedAt: number }>();
  return (counted, message, context) => {
    const seen = pending.get(message) ?? { count: 0, reportedAt: -Infinity };
    seen.count += 1;
    pending.set(message, seen);
    if (now() - seen.reportedAt < 60_000) return;
    log.warn(message, { [counted]: seen.count, ...context });
    seen.count = 0;
    seen.reportedAt = now();
  };
}
