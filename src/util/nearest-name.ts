// The name a caller most likely meant: for a misspelled query parameter ("fromat" -> "format",
// "audioformat" -> "audio"). Pure.

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `given`, or null when none is close: a name the given one starts
 * with, ends with or holds (a name run into another word), else one within a third of its
 * length in edits (at least 2).
 */
export function nearestName(given: string, known: readonly string[]): string | null {
  const word = given.toLowerCase();
  const held = known.filter((name) => word.includes(name));
  if (held.length > 0) {
    return held.find((name) => word.startsWith(name)) ?? held.find((name) => word.endsWith(name)) ?? held[0]!;
  }
  const scored = known.map((name) => ({ name, distance: editDistance(word, name) })).sort((x, y) =>
    x.distance - y.distance
  );
  const best = scored[0];
  return best !== undefined && best.distance <= Math.max(2, Math.floor(word.length / 3)) ? best.name : null;
}
