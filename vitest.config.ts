import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/helpers/longest-first.ts";
import { scaled, slowness } from "./test/helpers/slowness.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Every bound scaled by the machine's slowness (test/helpers/slowness.ts): a busy machine makes
    // the suite slower, not red.
    testTimeout: scaled(30_000),
    hookTimeout: scaled(60_000),
    expect: { poll: { timeout: scaled(1_000) } },
    // Most of a file's time is spent waiting on child processes and sockets, so three workers
    // keep a 2-core machine busy (Vitest's default, one worker fewer than the cores, ran the files
    // one after another there): 352 s against 450 s with two. Four gave 313 s on a quiet machine,
    // but leave the timed tests less room on a busy one: four where the machine was quiet when the
    // suite began (a slowness under 1.5), three otherwise.
    maxWorkers: slowness < 1.5 ? 4 : 3,
    // The files of a worker share its modules instead of each importing the house anew: 2 CPU
    // minutes less in all. No file leaves state in a module for the next (each makes its own
    // stores, services and servers); one that changes the environment puts it back.
    isolate: false,
    // The longest files first (test/durations.json), so that none of them starts last and runs on
    // alone while the other workers have nothing left: Vitest's own order needs the durations of an
    // earlier run on this machine, which a clean clone lacks.
    sequence: { sequencer: LongestFirst },
  },
});
