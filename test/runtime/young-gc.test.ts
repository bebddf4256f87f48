// The relay's young collections (src/runtime/node/young-gc.ts): one per 16 MiB relayed, counted as
// V8 reports its collections, and none before the first 16 MiB.
import { constants, PerformanceObserver } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { relayedBytes } from "../../src/runtime/node/young-gc.ts";
import { until } from "../helpers/until.ts";

/** Counts V8's young collections from now on. */
function youngCollections() {
  const seen = { count: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (
        (entry as PerformanceEntry & { detail: { kind: number } }).detail.kind === constants.NODE_PERFORMANCE_GC_MINOR
      ) {
        seen.count++;
      }
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return { seen, stop: () => observer.disconnect() };
}

describe("relayedBytes()", () => {
  let observing: ReturnType<typeof youngCollections> | undefined;
  afterEach(() => observing?.stop());

  it("runs a young collection after each 16 MiB relayed, by all bodies together", async () => {
    observing = youngCollections();
    // 64 MiB as 64 KiB chunks, counted synchronously: nothing else allocates enough meanwhile to
    // fill the young generation, so the collections are the relay's own (another would only add).
    for (let chunk = 0; chunk < 1024; chunk++) relayedBytes(64 * 1024);
    const { seen } = observing;
    await until("four young collections reported", () => seen.count >= 4 || undefined);
    expect(seen.count).toBeGreaterThanOrEqual(4);
  });
});
