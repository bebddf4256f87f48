// The order in which Vitest hands the files to its workers: the longest first, by the durations
// recorded in test/durations.json. A worker takes the next file when it is free, so a long file
// started last keeps the suite running on one worker while the others idle; started first, the
// short ones fill in around it. Vitest's own order needs its cache of the last run's durations,
// which a clean clone (CI, a newcomer) lacks: it then runs the largest files first, and file size
// says little of time (the 100-line fairness file is among the longest).
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The file whose durations `scripts/test-durations.ts` writes from a JSON report of a whole run. */
export const DURATIONS_FILE = "test/durations.json";

/** Each test file's seconds in a recorded run, by its path from the clone's root. */
export function recordedDurations(root: string): Record<string, number> {
  return JSON.parse(readFileSync(join(root, DURATIONS_FILE), "utf8")) as Record<string, number>;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = recordedDurations(root);
    // A file not recorded yet (a new one) may be long: it goes first, in Vitest's own order.
    const of = (file: TestSpecification) => seconds[relative(root, file.moduleId)] ?? Infinity;
    return (await super.sort(files)).toSorted((a, b) => of(b) - of(a));
  }
}
