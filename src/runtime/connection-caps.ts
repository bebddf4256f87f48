// Caps on the client connections a server holds open, in all and per client, and the bound on
// the time to a complete request head. Every open connection holds a file descriptor; without a
// cap, idle connections from one address took the process to its descriptor limit, and then every
// request (health checks included) was refused. The cap stays well below that limit, so the store,
// the children's pipes, the egress gate and the relays' upstream sockets keep their room.
import { readFileSync } from "node:fs";
import { clientGroup, isTrustedProxy, type TrustedProxies } from "../http/client-address.ts";
import type { Logger } from "../log.ts";
import type { Config } from "../config.ts";
import { Counts } from "../util/counts.ts";

export interface ConnectionLimits {
  /** How long a connection may take to send a complete request head (from being opened, or from its previous response). */
  headTimeoutMs: number;
  /** Connections held open at once, in all. */
  maxConnections: number;
  /** Connections one client (clientGroup of the socket's peer) holds open at once. */
  maxPerClient: number;
  /** Peers the per-client cap does not apply to: every client behind them shares their address. */
  trustedProxies: TrustedProxies;
}

/** Without a readable open-file limit (not Linux), as if it were a common default of 1024. */
const ASSUMED_FILE_LIMIT = 1024;
/** More idle connections than this cost memory for nothing on a small server. */
const MOST_CONNECTIONS = 4096;

/** The limits from the configuration; MAX_CONNECTIONS unset is half the open-file limit, at most 4096. */
export function connectionLimits(
  config: Pick<Config, "REQUEST_HEAD_TIMEOUT_S" | "MAX_CONNECTIONS" | "MAX_CONNECTIONS_PER_CLIENT" | "TRUST_PROXY">,
  fileLimit: number | null = openFileLimit(),
): ConnectionLimits {
  const maxConnections = config.MAX_CONNECTIONS ?? Math.min(MOST_CONNECTIONS, Math.floor((fileLimit ?? ASSUMED_FILE_LIMIT) / 2));
  return {
    headTimeoutMs: config.REQUEST_HEAD_TIMEOUT_S * 1000,
    maxConnections,
    maxPerClient: Math.min(config.MAX_CONNECTIONS_PER_CLIENT, maxConnections),
    trustedProxies: config.TRUST_PROXY,
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

export interface ConnectionCounter {
  /** Counts a new connection from `peer`; the function to call once it closes, or null when it must be closed now. */
  admit(peer: string | undefined): (() => void) | null;
  readonly open: number;
}

/** Counts open connections against the caps; a refusal is logged, at most once a minute with how many there were. */
export function connectionCounter(limits: ConnectionLimits, log: Logger, now: () => number = Date.now): ConnectionCounter {
  const byClient = new Counts<string>();
  let open = 0;
  let refused = 0;
  let reportedAt = -Infinity;
  const refuse = (client: string | null) => {
    refused += 1;
    if (now() - reportedAt < 60_000) return null;
    reportedAt = now();
    log.warn("connections refused: a connection cap is reached", {
      refused,
      open,
      maxConnections: limits.maxConnections,
      ...(client === null ? {} : { client, maxPerClient: limits.maxPerClient }),
    });
    refused = 0;
    return null;
  };
  return {
    admit(peer) {
      // A Unix socket has no peer address; a trusted proxy carries many clients.
      const client = peer === undefined || isTrustedProxy(peer, limits.trustedProxies) ? null : clientGroup(peer);
      if (open >= limits.maxConnections) return refuse(null);
      if (client !== null && byClient.of(client) >= limits.maxPerClient) return refuse(client);
      open += 1;
      if (client !== null) byClient.add(client, 1);
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        open -= 1;
        if (client !== null) byClient.add(client, -1);
      };
    },
    get open() {
      return open;
    },
  };
}
