import { describe, expect, it } from "vitest";
import { createSemaphore } from "../../src/util/semaphore.ts";

describe("createSemaphore()", () => {
  it("runs at most `running` at once, queues `waiting`, and refuses the rest", async () => {
    const run = createSemaphore(2, 1, () => new Error("full"));
    let active = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const task = () =>
      run(async () => {
        active += 1;
        most = Math.max(most, active);
        await new Promise<void>((release) => releases.push(release));
        active -= 1;
      });
    const started = [task(), task(), task()];
    await expect(task()).rejects.toThrow("full");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(releases).toHaveLength(2);
    releases.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(releases).toHaveLength(2);
    for (const release of releases.splice(0)) release();
    await Promise.all(started);
    expect(most).toBe(2);
    // Every slot came back: two run at once again.
    const again = [task(), task()];
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(releases).toHaveLength(2);
    for (const release of releases) release();
    await Promise.all(again);
  });
});
