// The egress gate's sessions: one per child run, each with credentials of its own (an id and the
// gate's secret, random per start), its connections, what the gate refused it or could not open
// for it, when its source last sent a byte, and its budget (egress-budget.ts).
import { ApiError } from "../http/problem.ts";
import { fromBase64Url, randomBytes, timingSafeEqual, toHex } from "../util/bytes.ts";
import { type BudgetMeter, budgetMeter, type ExtractionBudget, type Traffic } from "./egress-budget.ts";

/** What the gate needs of a client's connection to end it. */
export interface Closable {
  destroy(): void;
}

export interface SessionState {
  refused: ApiError | null;
  failed: string | null;
  lastSourceByte: number;
  connections: Set<Closable>;
  /** Checked playlists by path (servePlaylist). */
  playlists: Map<string, string>;
  meter: BudgetMeter;
}

export interface GateSessions {
  /** A new session with its budget (null: none); its id and the gate's secret are its credentials. */
  open(budget: ExtractionBudget | null): { id: string; secret: string; state: SessionState };
  /** The live session whose credentials a Proxy-Authorization header carries. */
  byAuthorization(header: string | undefined): SessionState | undefined;
  /** The traffic of a connection of `state` to `endpoint`: it marks the source's bytes and spends the budget. */
  traffic(state: SessionState, endpoint: string): Traffic;
  /** Ends a session's connections and credentials. */
  close(id: string): void;
  closeAll(): void;
}

export function gateSessions(): GateSessions {
  const secret = toHex(randomBytes(24));
  const sessions = new Map<string, SessionState>();
  const cut = (connections: Set<Closable>) => {
    for (const connection of connections) connection.destroy();
  };
  return {
    open(budget) {
      const id = toHex(randomBytes(9));
      const connections = new Set<Closable>();
      // Past its budget, nothing of the session may go on reading.
      const meter = budgetMeter(budget, () => cut(connections));
      const state: SessionState = {
        refused: null,
        failed: null,
        lastSourceByte: Date.now(),
        connections,
        playlists: new Map(),
        meter,
      };
      sessions.set(id, state);
      return { id, secret, state };
    },
    byAuthorization(header) {
      const credentials = basicCredentials(header);
      if (credentials === null) return undefined;
      const [id = "", given = ""] = credentials.split(":", 2);
      const encoder = new TextEncoder();
      const equal = given.length === secret.length && timingSafeEqual(encoder.encode(given), encoder.encode(secret));
      return equal ? sessions.get(id) : undefined;
    },
    traffic(state, endpoint) {
      const spending = state.meter.connection(endpoint);
      return {
        fromClient: spending.fromClient,
        fromSource(count) {
          state.lastSourceByte = Date.now();
          spending.fromSource(count);
        },
      };
    },
    close(id) {
      const state = sessions.get(id);
      sessions.delete(id);
      if (state !== undefined) cut(state.connections);
    },
    closeAll() {
      for (const state of sessions.values()) cut(state.connections);
      sessions.clear();
    },
  };
}

/** "id:secret" of a `Basic` Proxy-Authorization header; null when it is none. */
function basicCredentials(header: string | undefined): string | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return null;
  try {
    return new TextDecoder().decode(fromBase64Url(match[1]!));
  } catch {
    return null;
  }
}
