// Keeps a failing upstream from being hammered: after a failure, calls are refused for a pause that
// doubles with each further failure (up to maxMs); when the pause is over, one probe call goes out
// and its outcome closes or re-opens the gate.

export interface Backoff {
  /** 0 when a call may go out now; otherwise how many ms to wait before asking again. */
  acquire(): number;
  succeeded(): void;
  failed(): void;
}

export function createBackoff(options: { now: () => number; baseMs: number; maxMs: number }): Backoff {
  let failures = 0;
  let retryAt = 0;
  let probing = false;
  return {
    acquire() {
      if (failures === 0) return 0;
      const wait = retryAt - options.now();
      if (wait > 0) return wait;
      if (probing) return options.baseMs;
      probing = true;
      return 0;
    },
    succeeded() {
      failures = 0;
      probing = false;
    },
    failed() {
      failures += 1;
      probing = false;
      retryAt = options.now() + Math.min(options.maxMs, options.baseMs * 2 ** (failures - 1));
    },
  };
}
