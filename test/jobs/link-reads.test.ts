// A job's links read a few at a time (src/jobs/link-reads.ts): a read that finds the key's slots all
// held waits for a read of its own part that held one, and asks again only when that one ends.
import { describe, expect, test } from "vitest";
import { NO_SLOT, type NoSlot, readInOrder } from "../../src/jobs/link-reads.ts";

describe("links read in order", () => {
  test("reads that found no slot wait for the one that reads, instead of waking each other", async () => {
    let free = 1;
    let release = () => {};
    const reading = new Promise<void>((resolve) => (release = resolve));
    const asked: number[] = [];
    const taken: string[] = [];
    const turn = readInOrder<string>({
      from: 0,
      count: 3,
      width: 3,
      async read(at): Promise<string | NoSlot> {
        asked.push(at);
        if (free === 0) return NO_SLOT;
        free -= 1;
        if (at === 0) await reading;
        free += 1;
        return `link ${at}`;
      },
      async take(_, answers) {
        taken.push(...answers);
        return answers.length;
      },
      keep: async () => {},
    });
    // While link 0 holds the one slot, links 1 and 2 have each asked once and wait.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(asked.sort()).toEqual([0, 1, 2]);
    release();
    expect(await turn).toEqual({ next: 3, noSlot: false });
    expect(taken).toEqual(["link 0", "link 1", "link 2"]);
    // Each waiting read asked again once per read that ended: a handful, not thousands.
    expect(asked.length).toBeLessThanOrEqual(6);
  });

  test("a reading whose reads all find no slot stops there and says so", async () => {
    const turn = await readInOrder<string>({
      from: 0,
      count: 3,
      width: 2,
      read: async () => NO_SLOT,
      take: async (_, answers) => answers.length,
      keep: async () => {},
    });
    expect(turn).toEqual({ next: 0, noSlot: true });
  });

  test("a reading that stops at a link with no slot keeps what the links past it answered, to be taken, not read again", async () => {
    const kept: [number, string][] = [];
    const taken: string[] = [];
    const turn = await readInOrder<string>({
      from: 0,
      count: 3,
      width: 3,
      // Link 0 never finds a slot; links 1 and 2 each find one as it frees.
      read: async (at) => (at === 0 ? NO_SLOT : new Promise((resolve) => setTimeout(() => resolve(`link ${at}`), 50))),
      async take(_, answers) {
        taken.push(...answers);
        return answers.length;
      },
      async keep(at, answer) {
        kept.push([at, answer]);
      },
    });
    expect(turn).toEqual({ next: 0, noSlot: true });
    expect(taken).toEqual([]);
    expect(kept).toEqual([[1, "link 1"], [2, "link 2"]]);
  });
});
