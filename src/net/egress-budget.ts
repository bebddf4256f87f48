// What one extraction may read through the egress gate. yt-dlp and gallery-dl hold a page or an
// API answer whole in memory, and the page need not be the platform's (yt-dlp hands a link post's
// target to its generic extractor), so a page that never ends, or a very large one, would grow the
// tool until the kernel kills something. An extraction's gate session therefore has a budget: the
// bytes its sources may send in all (TLS passes the gate as a CONNECT tunnel, so bytes are counted
// on the wire, not per body), and how long one answer may keep coming after the tool last sent a
// byte on its connection (a request). Past either, the gate cuts the session's connections and the
// job fails with 502 source_too_large. Media that ffmpeg reads are not counted here: their cap is
// MAX_DOWNLOAD_BYTES on what the service sends.
import { ApiError } from "../http/problem.ts";

export interface ExtractionBudget {
  /** Bytes the sources of one extraction may send, all connections together (EXTRACT_MAX_BYTES). */
  maxBytes: number;
  /** How long one answer may keep arriving after the tool's last byte on its connection (EXTRACT_BODY_TIMEOUT_S). */
  bodyTimeoutMs: number;
}

/** What the runtime's listener tells of one forwarded connection's bytes. */
export interface Traffic {
  fromSource(count: number): void;
  fromClient(): void;
}

/** One session's spending. */
export interface BudgetMeter {
  /** The traffic of a connection to `endpoint` (host:port, for the detail). */
  connection(endpoint: string): Traffic;
  /** The budget this session passed, as 502 source_too_large; null while it has not. */
  spent(): ApiError | null;
}

/** A meter that calls `onSpent` once, when the session passes `budget`; with no budget it only counts nothing. */
export function budgetMeter(
  budget: ExtractionBudget | null,
  onSpent: () => void,
  now: () => number = Date.now,
): BudgetMeter {
  let received = 0;
  let spent: ApiError | null = null;
  const spend = (detail: string) => {
    if (spent !== null) return;
    spent = new ApiError("source_too_large", detail);
    onSpent();
  };
  return {
    connection(endpoint) {
      if (budget === null) return { fromSource: () => {}, fromClient: () => {} };
      let askedAt = now();
      return {
        fromClient: () => (askedAt = now()),
        fromSource(count) {
          received += count;
          if (received > budget.maxBytes) spend(tooLarge(endpoint, budget.maxBytes));
          else if (now() - askedAt > budget.bodyTimeoutMs) spend(tooSlow(endpoint, budget.bodyTimeoutMs));
        },
      };
    },
    spent: () => spent,
  };
}

function tooLarge(endpoint: string, maxBytes: number): string {
  return `The post's pages are larger than this server reads for one post (${
    sizeText(maxBytes)
  } in all); ${endpoint} was still sending when it stopped reading.`;
}

function tooSlow(endpoint: string, bodyTimeoutMs: number): string {
  return `The post's pages are larger than this server reads for one post: ${endpoint} kept sending one answer for more than ${
    bodyTimeoutMs / 1000
  } s.`;
}

/** "32 MiB", "512 KiB", "100 bytes". */
export function sizeText(bytes: number): string {
  const round = (value: number) => Math.round(value * 10) / 10;
  if (bytes >= 1024 ** 2) return `${round(bytes / 1024 ** 2)} MiB`;
  return bytes >= 1024 ? `${round(bytes / 1024)} KiB` : `${bytes} bytes`;
}
