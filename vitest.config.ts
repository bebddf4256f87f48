import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default leaves one core idle, which on a 2-core machine runs the files one after
    // another; most of their time is spent waiting on child processes and sockets.
    maxWorkers: 2,
  },
});
