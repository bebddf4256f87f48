// Something that happens, told to whoever listens: its source need not know its listeners, nor be
// built after them.
export interface Happening<Args extends unknown[]> {
  emit(...args: Args): void;
  on(listener: (...args: Args) => void): void;
}

export function happening<Args extends unknown[]>(): Happening<Args> {
  const listeners: ((...args: Args) => void)[] = [];
  return {
    emit: (...args) => {
      for (const listener of listeners) listener(...args);
    },
    on: (listener) => void listeners.push(listener),
  };
}
