import { describe, expect, it } from "vitest";
import { responseDone, whenResponseDone } from "../../src/http/response-done.ts";

describe("whenResponseDone()", () => {
  it("runs the callback once, when the adapter says the response is done", () => {
    const request = new Request("http://test.local/");
    let calls = 0;
    whenResponseDone(request, () => (calls += 1));
    expect(calls).toBe(0);
    responseDone(request, { ended: "complete" });
    responseDone(request, { ended: "complete" });
    expect(calls).toBe(1);
  });

  it("runs it when the client goes away, and not again when the adapter reports later", () => {
    const controller = new AbortController();
    const request = new Request("http://test.local/", { signal: controller.signal });
    let calls = 0;
    whenResponseDone(request, () => (calls += 1));
    controller.abort();
    expect(calls).toBe(1);
    responseDone(request, { ended: "complete" });
    expect(calls).toBe(1);
  });

  it("tells how the body ended: as the adapter says, or cut by the client when the signal aborts first", () => {
    const controller = new AbortController();
    const cut = new Request("http://test.local/", { signal: controller.signal });
    const failed = new Request("http://test.local/");
    const ends: unknown[] = [];
    whenResponseDone(cut, (end) => ends.push(end));
    whenResponseDone(failed, (end) => ends.push(end));
    controller.abort();
    responseDone(failed, { ended: "cut by error", error: "reset" });
    expect(ends).toEqual([{ ended: "cut by client" }, { ended: "cut by error", error: "reset" }]);
  });

  it("runs it at once for a request already aborted", () => {
    const request = new Request("http://test.local/", { signal: AbortSignal.abort() });
    let calls = 0;
    whenResponseDone(request, () => (calls += 1));
    expect(calls).toBe(1);
  });
});
