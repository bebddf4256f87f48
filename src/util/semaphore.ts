// Runs at most `running` tasks at once and keeps at most `waiting` in line; past that it refuses,
// so a flood cannot queue unbounded work.

export function createSemaphore(running: number, waiting: number, refuse: () => Error) {
  let active = 0;
  const line: (() => void)[] = [];
  return async function run<T>(work: () => Promise<T>): Promise<T> {
    if (active < running) active += 1;
    else if (line.length < waiting) await new Promise<void>((turn) => line.push(turn));
    else throw refuse();
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, or is given back.
      const next = line.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
