// The one factor every wait of the suite is scaled by (test/helpers/slowness.ts).
import { describe, expect, test } from "vitest";
import suite from "../vitest.config.ts";
import { measureSlowness, scaled, slowness } from "./helpers/slowness.ts";

describe("the suite's slowness", () => {
  test("is what the environment says, which the config measured or was given, and scales a bound", () => {
    expect(process.env.TEST_SLOWNESS).toBe(String(slowness));
    expect(scaled(30_000)).toBe(Math.round(30_000 * slowness));
  });

  test("scales the test and hook timeouts and expect.poll's", () => {
    expect(suite.test).toMatchObject({
      testTimeout: scaled(30_000),
      hookTimeout: scaled(60_000),
      expect: { poll: { timeout: scaled(1_000) } },
    });
  });

  test("measured, is between 1 and 8, to a tenth", () => {
    const measured = measureSlowness();
    expect(measured).toBeGreaterThanOrEqual(1);
    expect(measured).toBeLessThanOrEqual(8);
    expect(Math.round(measured * 10) / 10).toBe(measured);
  });
});
