import { scaled } from "./slowness.ts";

/** Checks `probe` every `everyMs` until it gives a value or `boundMs` has passed. */
async function poll<T>(probe: () => T | undefined | Promise<T | undefined>, boundMs: number, everyMs: number) {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (value || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits for `probe` to give a value; throws naming `what` after `timeoutMs` (scaled by the slowness). */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const value = await poll(probe, scaled(timeoutMs), everyMs);
  if (!value) throw new Error(`timed out waiting for ${what}`);
  return value;
}

const holds = (done: () => boolean | Promise<boolean>) => async () => (await done()) || undefined;

/** Waits for `done` to hold, at most `timeoutMs` (scaled); says whether it did, so that the test can show what is left. */
export async function settled(done: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50) {
  return (await poll(holds(done), scaled(timeoutMs), everyMs)) === true;
}

/**
 * Whether `done` holds within `ms`, which is the behaviour under test (a tool gone within 3 s of its
 * kill): not scaled, as a speed is not.
 */
export async function holdsWithin(done: () => boolean | Promise<boolean>, ms: number, everyMs = 50) {
  return (await poll(holds(done), ms, everyMs)) === true;
}
