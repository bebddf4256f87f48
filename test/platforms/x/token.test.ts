import { describe, expect, it } from "vitest";
import { syndicationToken } from "../../../src/platforms/x/token.ts";

describe("syndicationToken()", () => {
  it("matches the token other clients compute for post 20", () => {
    // Value published by an independent client's tests for jack/status/20.
    expect(syndicationToken("20")).toBe("6dq1a2xwd93");
  });

  it("is base-36 text without zeros or dots for 19-digit ids", () => {
    for (const id of ["1491475671058681863", "2085077475109769243", "746487912313688067"]) {
      expect(syndicationToken(id)).toMatch(/^[1-9a-z]+$/);
    }
    expect(syndicationToken("1491475671058681863")).not.toBe(syndicationToken("2085077475109769243"));
  });
});
