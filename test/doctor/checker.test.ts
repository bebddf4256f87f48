// The platform check's runs in time: chained so two never overlap, the background interval with
// its jitter, skipping a turn while a run is on. The fetch is a stand-in the test releases by
// hand; test/doctor/doctor.test.ts runs the real one.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPlatformChecks } from "../../src/doctor/checker.ts";

afterEach(() => vi.useRealTimers());

function controlled() {
  const started: string[] = [];
  const waiting: (() => void)[] = [];
  let active = 0;
  let most = 0;
  const checks = createPlatformChecks({
    posts: [{ site: "VIMEO", url: new URL("https://vimeo.com/76979871") }, {
      site: "REDDIT",
      url: new URL("https://www.reddit.com/comments/1"),
    }],
    fetchPost: (url) => {
      started.push(url.hostname);
      active += 1;
      most = Math.max(most, active);
      return new Promise<void>((resolve) => waiting.push(() => (active -= 1, resolve())));
    },
    siteOf: () => null,
    context: async () => ({ extractor: "yt-dlp", update: "update", expiredSession: null }),
    random: () => 1,
  });
  // Lets the promise chain reach the next fetch without moving the (fake) clock.
  const releaseNext = async () => {
    for (let turn = 0; turn < 100 && waiting.length === 0; turn++) await Promise.resolve();
    expect(waiting.length).toBeGreaterThan(0);
    waiting.shift()!();
  };
  return { checks, started, releaseNext, most: () => most };
}

describe("the platform check's runs", () => {
  it("wait for each other: a run asked for during another starts when it has ended", async () => {
    const { checks, started, releaseNext, most } = controlled();
    const first = checks.run();
    const second = checks.run(["REDDIT"]);
    await releaseNext();
    await releaseNext();
    expect(await first).toHaveLength(2);
    await releaseNext();
    expect((await second).map((result) => [result.site, result.status])).toEqual([["REDDIT", "ok"]]);
    expect(started).toEqual(["vimeo.com", "www.reddit.com", "www.reddit.com"]);
    expect(most()).toBe(1);
  });

  it("run in the background within the jitter of the interval, the first soon after start, and skip a turn while one is on", async () => {
    vi.useFakeTimers();
    const { checks, started, releaseNext, most } = controlled();
    const stop = checks.every(3600);
    // random() = 1: the longest wait, 1.25 x min(interval, 30 s) for the first.
    await vi.advanceTimersByTimeAsync(37_499);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(["vimeo.com"]);
    await releaseNext();
    await releaseNext();
    expect(started).toEqual(["vimeo.com", "www.reddit.com"]);
    // An on-demand run still on when the next turn comes: the turn is skipped, not run beside it.
    const demanded = checks.run(["VIMEO"]);
    await vi.advanceTimersByTimeAsync(4_500_000);
    expect(started).toHaveLength(3);
    await releaseNext();
    await demanded;
    await vi.advanceTimersByTimeAsync(4_500_000 - 1);
    expect(started).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(4);
    stop();
    await releaseNext();
    await releaseNext();
    await vi.advanceTimersByTimeAsync(10 * 4_500_000);
    expect(started).toHaveLength(5);
    expect(most()).toBe(1);
  });
});
