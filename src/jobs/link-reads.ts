// A job's links read a few at a time, their answers taken in the caller's order: the items of a
// link get their positions after those of every link before it, so an answer that comes early
// waits for the ones before it, and a job's first items start as soon as its first link is read.
// A read that finds the key's slots all held waits only for the other reads of its part (their slots
// free as they end); with none of them running, the reading stops there and gives the worker back,
// keeping what the reads past it answered, so that no link is read twice.

/** A read that found no slot free: the key's own calls and items hold them all. */
export const NO_SLOT: NoSlot = Object.freeze({ noSlot: true });
export type NoSlot = { readonly noSlot: true };
const isNoSlot = <Answer>(answer: Answer | NoSlot): answer is NoSlot => answer === NO_SLOT;

export interface OrderedReads<Answer> {
  /** The 0-based place of the first link to read, and how many links there are. */
  from: number;
  count: number;
  /** Reads started ahead of the first not yet taken: the key's share. */
  width: number;
  read(at: number): Promise<Answer | NoSlot>;
  /**
   * Takes the answers of the links from `at` on, in order: those read by then, together (one write
   * for many links that came at once). How many it took; fewer than it was handed stops the reading
   * there (the job holds no more).
   */
  take(at: number, answers: Answer[]): Promise<number>;
  /**
   * Keeps the answer of link `at`, read past a link that found no slot where the reading stopped:
   * the part's next run takes it instead of reading the link again.
   */
  keep(at: number, answer: Answer): Promise<void>;
}

/**
 * Reads and takes links from `from` on; the place of the first link not taken (`count` when every
 * one was), with whether the reading stopped for want of a slot. A read that throws ends the reading
 * with its error; what was taken before it stays taken.
 */
export async function readInOrder<Answer>(ordered: OrderedReads<Answer>): Promise<{ next: number; noSlot: boolean }> {
  let running = 0;
  let wake = () => {};
  let oneEnded = new Promise<void>((resolve) => (wake = resolve));
  const attempt = async (at: number): Promise<Answer | NoSlot> => {
    for (;;) {
      running += 1;
      let answer: Answer | NoSlot;
      // A read that threw may have held a slot.
      let heldOne = true;
      try {
        answer = await ordered.read(at);
        heldOne = !isNoSlot(answer);
      } finally {
        running -= 1;
        // Only a read that held a slot frees one: two reads that found none, waking each other, would
        // ask again without end while a third reads (thousands a second, each with its timers). The
        // last read to end wakes the others all the same, which then stop the reading or read.
        if (heldOne || running === 0) {
          wake();
          oneEnded = new Promise<void>((resolve) => (wake = resolve));
        }
      }
      if (!isNoSlot(answer) || running === 0) return answer;
      await oneEnded;
    }
  };
  const reads = new Map<number, Promise<Answer | NoSlot>>();
  // The answers come so far: those that follow the one awaited are taken with it.
  const answered = new Map<number, Answer>();
  let next = ordered.from;
  const startAhead = (taken: number) => {
    for (; next < ordered.count && next - taken < ordered.width; next += 1) {
      const at = next;
      const read = attempt(at);
      // Read ahead and perhaps never taken (the reading stopped before it): its failure is not the reading's.
      read.then((answer) => {
        if (!isNoSlot(answer)) answered.set(at, answer);
      }, () => {});
      reads.set(at, read);
    }
  };
  let taken = ordered.from;
  while (taken < ordered.count) {
    startAhead(taken);
    const first: Answer | NoSlot = await reads.get(taken)!;
    if (isNoSlot(first)) {
      await keepAnswered(ordered, reads);
      return { next: taken, noSlot: true };
    }
    const batch: Answer[] = [first];
    while (answered.has(taken + batch.length)) batch.push(answered.get(taken + batch.length)!);
    for (let at = taken; at < taken + batch.length; at += 1) {
      reads.delete(at);
      answered.delete(at);
    }
    const took = await ordered.take(taken, batch);
    taken += took;
    if (took < batch.length) return { next: taken, noSlot: false };
  }
  return { next: ordered.count, noSlot: false };
}

/** Once every read still running has ended, keeps those that answered: each link is read once. */
async function keepAnswered<Answer>(
  ordered: OrderedReads<Answer>,
  reads: ReadonlyMap<number, Promise<Answer | NoSlot>>,
): Promise<void> {
  for (const [at, read] of reads) {
    const answer = await read.catch(() => NO_SLOT);
    if (!isNoSlot(answer)) await ordered.keep(at, answer);
  }
}
