// The client-stall cut on its own: a consumer that stops pulling is cut after the timeout and the
// source is cancelled; a slow consumer and a silent source are not.
import { describe, expect, it } from "vitest";
import { stallWatched } from "../../src/http/client-stall.ts";
import { until } from "../helpers/until.ts";

const TIMEOUT_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A source with a chunk always ready; `cancelled` says when and why it was cancelled. */
function endlessSource() {
  const seen: { cancelledAt?: number; reason?: unknown } = {};
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(new Uint8Array(1024)),
    cancel: (reason) => {
      seen.cancelledAt = performance.now();
      seen.reason = reason;
    },
  });
  return { body, seen };
}

describe("stallWatched", () => {
  it("cuts a consumer that stops pulling once the timeout has passed, and cancels the source", async () => {
    const { body, seen } = endlessSource();
    const reader = stallWatched(body, TIMEOUT_MS).getReader();
    await reader.read();
    const handed = performance.now();
    await sleep(TIMEOUT_MS * 3);
    expect(seen.cancelledAt).toBeDefined();
    expect(seen.cancelledAt! - handed).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(seen.cancelledAt! - handed).toBeLessThan(TIMEOUT_MS * 2);
    expect(String(seen.reason)).toMatch(/took nothing for 300 ms/);
    await expect(reader.read()).rejects.toThrow(/took nothing/);
  });

  it("lets a slow consumer that pulls within the timeout go on", async () => {
    const { body, seen } = endlessSource();
    const reader = stallWatched(body, TIMEOUT_MS).getReader();
    for (let i = 0; i < 8; i += 1) {
      expect((await reader.read()).value?.byteLength).toBe(1024);
      await sleep(TIMEOUT_MS / 2);
    }
    expect(seen.cancelledAt).toBeUndefined();
    await reader.cancel();
  });

  it("does not count a silent source against the consumer, and passes the end through", async () => {
    let send!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (send = controller) });
    const reader = stallWatched(body, TIMEOUT_MS).getReader();
    const waiting = reader.read();
    await sleep(TIMEOUT_MS * 3);
    send.enqueue(new Uint8Array([1, 2, 3]));
    expect((await waiting).value).toEqual(new Uint8Array([1, 2, 3]));
    send.close();
    expect((await reader.read()).done).toBe(true);
  });
});

describe("stallWatched with readings of the client's progress", () => {
  /** A consumer that pulls once and then holds its chunk, while `mark` says what the kernel saw. */
  async function heldWith(mark: () => string | undefined) {
    const { body, seen } = endlessSource();
    const reader = stallWatched(body, TIMEOUT_MS, mark).getReader();
    await reader.read();
    return { reader, seen };
  }

  it("lets a consumer whose progress keeps moving hold its chunk for many timeouts", async () => {
    let taken = 0;
    const { reader, seen } = await heldWith(() => String(taken += 1));
    await sleep(TIMEOUT_MS * 5);
    expect(seen.cancelledAt).toBeUndefined();
    await reader.cancel();
  });

  it("cuts a consumer whose progress stands still, and one whose progress cannot be read, after the timeout", async () => {
    for (const mark of [() => "1024:65536", () => undefined]) {
      const { seen } = await heldWith(mark);
      const held = performance.now();
      await until("the source to be cancelled", () => seen.cancelledAt, 30_000);
      expect(seen.cancelledAt! - held).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(String(seen.reason)).toMatch(/took nothing/);
    }
  });
});
