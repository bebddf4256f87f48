// The order the suite starts its files in (test/helpers/longest-first.ts): the longest recorded
// first, a file not recorded before them all.
import { describe, expect, test } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import suite from "../vitest.config.ts";
import { LongestFirst, recordedDurations } from "./helpers/longest-first.ts";

const root = process.cwd();
const project = { name: "", config: { sequence: { groupOrder: 0 }, isolate: false } };
const spec = (file: string) => ({ moduleId: `${root}/${file}`, project }) as unknown as TestSpecification;
/** Vitest's context as a clean clone has it: no cache of an earlier run. */
const cleanClone = {
  config: { root },
  cache: { getFileTestResults: () => undefined, getFileStats: () => undefined },
} as unknown as Vitest;

describe("the suite's order", () => {
  test("is the longest file first", () => {
    expect(suite.test!.sequence!.sequencer).toBe(LongestFirst);
  });

  test("sorts the recorded files by their durations, the longest first, and puts a new file before them", async () => {
    const recorded = Object.entries(recordedDurations(root));
    expect(recorded.length).toBeGreaterThan(100);
    const [longest] = recorded.toSorted(([, a], [, b]) => b - a)[0]!;
    const [shortest] = recorded.toSorted(([, a], [, b]) => a - b)[0]!;
    const files = [shortest, "test/new-one.test.ts", longest].map(spec);
    const sorted = await new LongestFirst(cleanClone).sort(files);
    expect(sorted.map((file) => file.moduleId)).toEqual(
      ["test/new-one.test.ts", longest, shortest].map((file) => `${root}/${file}`),
    );
  });
});
