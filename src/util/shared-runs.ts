// Equal look-ups at the same time share one run: the first starts it, the others wait for the same
// promise, and the key is free again once it settles. A shared run does not end when one caller
// goes away, since others may wait for it; the run's own time cap bounds it.

/** `run(key, start)`: the run in flight for `key`, or the one `start` begins now. */
export function sharedRuns<T>(): (key: string, start: () => Promise<T>) => Promise<T> {
  const inFlight = new Map<string, Promise<T>>();
  return (key, start) => {
    let running = inFlight.get(key);
    if (running === undefined) {
      running = start().finally(() => inFlight.delete(key));
      inFlight.set(key, running);
    }
    return running;
  };
}
