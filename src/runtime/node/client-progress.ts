// How far a client has taken a response, seen past the socket buffers. A client that reads slowly
// but steadily leaves megabytes in its own and our kernel's buffers (up to the maxima of tcp_rmem
// and tcp_wmem, 6 and 4 MiB by default), and the kernel wakes a writer only once a large part of
// its buffer is free: at 5 KB/s the server's program may write nothing for minutes while the
// client reads all along. Linux counts, per socket, the bytes sent and not yet acknowledged
// (`tx_queue` in /proc/net/tcp): it shrinks as the client's program reads and its window opens.
// So what was handed to the kernel less that count moves whenever the client takes anything, and
// stands still while it takes nothing. Elsewhere (another system, Bun's sockets, which hide their
// descriptor) there is no reading, and the stall cut watches the writes alone.
import { readFileSync, readlinkSync } from "node:fs";
import type { Socket } from "node:net";

/** One read of the tables serves every socket for this long: a crowd of stalled clients costs one read a second. */
const TABLE_TTL_MS = 1_000;
const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"];

let cached: { at: number; unacknowledged: Map<string, number> } | undefined;

/** Each socket's bytes sent and not yet acknowledged, by its inode, from the kernel's tables (at most a second old). */
function unacknowledgedBytes(): Map<string, number> {
  const now = performance.now();
  if (cached && now - cached.at < TABLE_TTL_MS) return cached.unacknowledged;
  const unacknowledged = new Map<string, number>();
  for (const table of TABLES) {
    let text: string;
    try {
      text = readFileSync(table, "latin1");
    } catch {
      continue;
    }
    for (const row of text.split("\n").slice(1)) addRow(unacknowledged, row);
  }
  cached = { at: now, unacknowledged };
  return unacknowledged;
}

/** A row: `sl local rem st tx_queue:rx_queue tr:when retrnsmt uid timeout inode ...`. */
function addRow(unacknowledged: Map<string, number>, row: string): void {
  const fields = row.trim().split(/\s+/);
  const queues = fields[4]?.split(":");
  const inode = fields[9];
  if (!queues || queues.length !== 2 || inode === undefined || !/^\d+$/.test(inode)) return;
  const sent = Number.parseInt(queues[0]!, 16);
  if (Number.isFinite(sent)) unacknowledged.set(inode, sent);
}

/** Node's own counts on a socket: what it handed libuv, what libuv still holds, its descriptor. */
interface SocketInternals {
  _bytesDispatched?: unknown;
  _handle?: { fd?: unknown; writeQueueSize?: unknown } | null;
}

/** The socket's inode, from its descriptor; null where the runtime hides the descriptor or there is no /proc. */
function inodeOf(socket: SocketInternals): string | null {
  const fd = socket._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return null;
  try {
    return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * A reader of `socket`'s progress for the Arrival (runtime/serve.ts `clientProgress`): the bytes the
 * client's kernel has acknowledged, as the kernel's count and Node's say (what Node handed libuv,
 * less what libuv still holds, less what the kernel has not had acknowledged); undefined where
 * those cannot be read. `bytesWritten` would not do: it counts what waits in Node's own buffer,
 * which moves into the kernel as the client reads, leaving the kernel's count where it was.
 */
export function clientProgressOf(socket: Socket): () => string | undefined {
  const internals = socket as unknown as SocketInternals;
  // Looked up at the first reading, which comes only while a response waits on this open socket.
  let inode: string | null | undefined;
  return () => {
    inode ??= inodeOf(internals);
    if (inode === null) return undefined;
    const unacknowledged = unacknowledgedBytes().get(inode);
    const dispatched = internals._bytesDispatched;
    const inLibuv = internals._handle?.writeQueueSize;
    if (unacknowledged === undefined || typeof dispatched !== "number" || typeof inLibuv !== "number") return undefined;
    return String(dispatched - inLibuv - unacknowledged);
  };
}
