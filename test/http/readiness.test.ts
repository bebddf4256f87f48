import { describe, expect, it } from "vitest";
import { runReadinessChecks } from "../../src/http/readiness.ts";

describe("runReadinessChecks()", () => {
  it("reports each named check, with the reason of a failure and a bound on a slow one", async () => {
    const results = await runReadinessChecks(
      [
        { name: "store", check: async () => {} },
        { name: "ffmpeg", check: () => Promise.reject(new Error("ffmpeg not found at /usr/bin/ffmpeg")) },
        { name: "slow", check: () => new Promise(() => {}) },
      ],
      50,
    );
    expect(results).toEqual({
      store: { ok: true },
      ffmpeg: { ok: false, error: "ffmpeg not found at /usr/bin/ffmpeg" },
      slow: { ok: false, error: "no answer within 50 ms" },
    });
  });
});
