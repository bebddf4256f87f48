// A relayed body's chunks are garbage once written, but they seldom meet a collection that frees
// them: each is a Buffer whose bytes live outside V8's heap behind a JavaScript object of ~100
// bytes, so a GiB relayed allocated too little in the heap to fill the young generation more than
// once. V8 then collected them only when 64 MB of such bytes had piled up, with a full mark-compact
// (16 per GiB): the relay held 50-85 MB of dead chunks at its peak, 250-267 MB RSS in all. A young
// collection (~0.3 ms, with nothing of the relay surviving it) after every 16 MiB relayed, by all
// relays of the process together, frees them sooner: 64 of those and no mark-compact per GiB, the
// peak at ~200 MB RSS and the relay no slower (docs/benchmarks.md#the-footprint).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const EVERY_BYTES = 16 * 2 ** 20;

type Collect = (options: { type: "minor"; execution: "sync" }) => void;

/**
 * V8's collector as a function, which only a context made while `--expose-gc` is set has: one is
 * made for it (at the first 16 MiB relayed, so a process that relays nothing holds no second
 * context), and the flag unset at once, so no other context sees `gc`. Bun's collector is
 * another (JavaScriptCore's), which this does not apply to.
 */
function youngCollector(): Collect | null {
  if ("Bun" in globalThis) return null;
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as Collect;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

let collect: Collect | null | undefined;
let sinceCollected = 0;

/** Counts `bytes` of a relayed body; a young collection once 16 MiB have passed since the last. */
export function relayedBytes(bytes: number): void {
  sinceCollected += bytes;
  if (sinceCollected < EVERY_BYTES) return;
  sinceCollected = 0;
  collect ??= youngCollector();
  collect?.({ type: "minor", execution: "sync" });
}
