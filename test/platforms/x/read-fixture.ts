import { readFileSync } from "node:fs";
import path from "node:path";
import { ApiError } from "../../../src/http/problem.ts";
import { fixturesDir } from "../../fakes/x-upstream.ts";

/** A recorded upstream answer, parsed; `name` is relative to test/fixtures/upstream. */
export function readFixture(name: string): unknown {
  return JSON.parse(readFileSync(path.join(fixturesDir, name), "utf8"));
}

/** The ApiError that call throws (fails the test when it throws nothing or something else). */
export function apiErrorOf(call: () => unknown): ApiError {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError, but nothing was thrown");
}
