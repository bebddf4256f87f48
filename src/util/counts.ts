/** Counts per name, forgetting a name whose count is back at zero. */
export class Counts<K> {
  #counts = new Map<K, number>();

  of(name: K): number {
    return this.#counts.get(name) ?? 0;
  }

  add(name: K, change: number): void {
    const next = this.of(name) + change;
    if (next === 0) this.#counts.delete(name);
    else this.#counts.set(name, next);
  }
}
