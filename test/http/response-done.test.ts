import { describe, expect, it } from "vitest";
import { responseDone, whenResponseDone } from "../../src/http/response-done.ts";

describe("whenResponseDone()", () => {
  it("runs the callback once, when the adapter says the response is done", () => {
    const request = new Request("http://test.local/");
    let calls = 0;
    whenResponseDone(request, () => (calls += 1));
    expect(calls).toBe(0);
    responseDone(request);
    responseDone(request);
    expect(calls).toBe(1);
  });

  it("runs it when the client goes away, and not again when the adapter reports later", () => {
    const controller = new AbortController();
    const request = new Request("http://test.local/", { signal: controller.signal });
    let calls = 0;
    whenResponseDone(request, () => (calls += 1));
    controller.abort();
    expect(calls).toBe(1);
    responseDone(request);
    expect(calls).toBe(1);
  });

  it("runs it at once for a request already aborted", () => {
    const request = new Request("http://test.local/", { signal: AbortSignal.abort() });
    let calls = 0;
    whenResponseDone(request, () => (calls += 1));
    expect(calls).toBe(1);
  });
});
